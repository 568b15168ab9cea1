"""NMBR 9 for a player who does not see the board: every display in words, the legal spots
of the tile as a list that reaches each of them and goes through the page's own preview and
Confirm, and the others' latest moves for the page's live region; none of it tells a reader
more than their board shows."""

import html
import re

import pytest

from games.models import Move
from games.nmbr9 import Board, Placement
from games.web.nmbr9.spoken import spot_choices
from tests.factories import HTMX, Forms, game_of, make_match, play, seat_of, start_solo

pytestmark = pytest.mark.django_db


def in_words(page: str, label: str) -> list[str]:
    """The items of the list of a display in words named ``label``."""
    found = re.search(rf'<ul [^>]*aria-label="{re.escape(label)}"[^>]*>(.*?)</ul>', page, re.S)
    assert found, f"no list {label!r}"
    return [html.unescape(t) for t in re.findall(r"<li>(.*?)</li>", found.group(1))]


def options(page: str) -> dict[str, str]:
    """The spots offered in the list: value -> text."""
    select = re.search(r'<select id="spot" name="spot">(.*?)</select>', page, re.S)
    if select is None:
        return {}
    found = re.findall(r'<option value="([^"]+)"[^>]*>(.*?)</option>', select.group(1))
    return {value: html.unescape(text) for value, text in found}


def rotation_links(page: str) -> list[str]:
    return [html.unescape(href) for href in re.findall(r'<a id="spots-r\d" href="([^"]+)"', page)]


def said(placement: Placement, level: int) -> str:
    w, h = placement.size
    return (
        f"{placement.number} on level {level} at x {placement.x}, y {placement.y}, rotated "
        f"{placement.rotation * 90}° (columns {placement.x} to {placement.x + w - 1}, rows "
        f"{placement.y} to {placement.y + h - 1})"
    )


def test_the_own_display_in_words_names_every_tile_from_the_top_level_down(client, alice):
    match = start_solo(client, alice, removed="0")
    page = client.get(match.get_absolute_url()).text
    assert in_words(page, "Your display in words") == ["No tile yet."]
    for _ in range(20):  # until the policy has built on level 1
        play(match, alice)
        board = game_of(match).board(0)
        if board.height() > 1:
            break
    page = client.get(match.get_absolute_url()).text
    tiles = sorted(board.tiles, key=lambda t: (-t[1], t[0].y, t[0].x))
    assert in_words(page, "Your display in words") == [said(p, level) for p, level in tiles]
    assert any(level for _p, level in tiles)


def test_the_list_of_spots_reaches_every_legal_spot_and_tells_its_level(client, alice):
    match = start_solo(client, alice, removed="0")
    for _ in range(5):
        play(match, alice)
    game = game_of(match)
    board, number = game.board(0), game.current_number(0)
    page = client.get(match.get_absolute_url()).text
    links = rotation_links(page)
    assert links, "each rotation with a spot has its link"
    offered: dict[str, str] = {}
    for link in links:
        turned = client.get(link, **HTMX).text
        offered |= options(turned)

    def squares(value: str) -> frozenset:
        x, y, r = (int(v) for v in value.split(","))
        return frozenset(Placement(number, x, y, r).cells())

    assert {squares(value) for value in offered} == {
        frozenset(p.cells()) for p, _level in board.legal_moves(number)
    }
    for value, text in offered.items():
        x, y, r = (int(v) for v in value.split(","))
        level = board.level_of(Placement(number, x, y, r))
        assert text == f"{number} at x {x}, y {y}, rotated {r * 90}°, level {level}"


def test_a_spot_chosen_from_the_list_is_shown_and_confirmed_as_a_click_would_be(client, alice):
    match = start_solo(client, alice, removed="0")
    for _ in range(3):
        play(match, alice)
    game = game_of(match)
    number = game.current_number(0)
    x, y, r = game.board(0).legal_spots(number)[-1]
    turn = client.get(match.get_absolute_url(), {"spot": f"{x},{y},{r}"}, **HTMX)
    assert turn.status_code == 200
    text = turn.text
    assert f'data-x="{x}" data-y="{y}" data-rotation="{r}"' in text
    assert re.search(r'<button [^>]*data-key="confirm"[^>]*autofocus', text)
    assert f'<option value="{x},{y},{r}" selected>' in text
    confirm = Forms(text).find("data-key")
    assert (confirm["fields"]["x"], confirm["fields"]["y"]) == (str(x), str(y))
    assert client.post(confirm["action"], confirm["fields"]).status_code == 302
    assert Move.objects.filter(match=match).latest("ply").text == f"place {number}@{x},{y}r{r}"


@pytest.mark.parametrize("spot", ["abc", "1,2", "1,2,4", "500,0,0", "1,2,3,4", ""])
def test_a_spot_that_is_no_place_is_refused_with_a_message(client, alice, spot):
    match = start_solo(client, alice, removed="0")
    response = client.get(match.get_absolute_url(), {"spot": spot})
    assert response.status_code == 400
    assert "spot: not a place on the display." in response.text
    assert not Move.objects.filter(match=match).exists()


def news(page: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r"<li data-news=\"[^\"]+\">(.*?)</li>", page)]


def test_the_others_moves_are_told_with_their_places_once_the_reader_may_see_them(
    client, alice, bob
):
    match = make_match(alice, bob, time_control="1d")
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    label = re.search(r'<ul hidden data-news-list="([^"]*)">', page)
    assert label and html.unescape(label[1]) == "The others' moves"
    play(match, alice)  # alice's tile of round 1: hidden from bob until he has placed his
    page = client.get(match.get_absolute_url()).text
    assert news(page) == []
    assert in_words(page, "Display of alice in words") == ["No tile yet."]
    play(match, bob)
    placed = game_of(match).board(seat_of(match, alice).index).tiles
    ((tile, level),) = placed
    page = client.get(match.get_absolute_url()).text
    assert news(page) == [
        f"alice placed the {tile.number} on level {level}. At x {tile.x}, y {tile.y}, rotated "
        f"{tile.rotation * 90}°."
    ]
    assert in_words(page, "Display of alice in words") == [said(tile, level)]
    client.force_login(alice)
    own = client.get(match.get_absolute_url()).text
    assert [n for n in news(own) if n.startswith("alice")] == []


def test_in_free_pace_nobody_reads_of_a_tile_beyond_their_own_round(client, alice, bob, carol):
    match = make_match(alice, bob, pace="free", time_control="1d")
    for _ in range(3):
        play(match, alice)
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    assert news(page) == []
    assert in_words(page, "Display of alice in words") == ["No tile yet."]
    play(match, bob)
    page = client.get(match.get_absolute_url()).text
    ((tile, level),) = game_of(match).view(seat_of(match, bob).index).displays[0].tiles
    assert in_words(page, "Display of alice in words") == [said(tile, level)]
    assert [n.split(".")[0] for n in news(page)] == [
        f"alice placed the {tile.number} on level {level}"
    ]
    client.force_login(carol)  # a spectator sees every display up to the slowest player's
    watched = client.get(match.get_absolute_url()).text
    assert len(news(watched)) == 2
    assert in_words(watched, "Display of alice in words") == [said(tile, level)]


@pytest.mark.parametrize("number", [0, 8])
def test_a_tile_alike_both_ways_round_fits_the_same_spots_turned_half_round(number):
    board = Board.from_placements(["5@0,0r0", "3@3,0r0"])
    lists = [
        spot_choices(board, Placement(number, 0, 0, r), (), None, lambda to: str(to))
        for r in range(4)
    ]
    assert [c["rotations"][2]["count"] for c in lists] == [lists[0]["count"]] * 4
    assert lists[2]["count"] == lists[0]["count"] > 0
    for r, choices in enumerate(lists):
        for _level, group in choices["groups"]:
            for spot in group:
                x, y, rotation = (int(v) for v in spot.value.split(","))
                assert rotation == r
                assert board.is_legal(Placement(number, x, y, rotation))
