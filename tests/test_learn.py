"""Learn to play: each game's tutorial step by step. A move the step teaches advances, a move
the rules refuse is answered with the rule (400, nothing changes), a legal move that misses
the step's point with the step's own sentence; an address that is not a game of the tutorial
is refused with a message; nothing is ever stored, for visitors, guests and accounts."""

import contextlib
import doctest
import re
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import translation

from games.contract import IllegalMove
from games.models import Match, Move
from games.nmbr9 import Board, Placement
from games.nmbrs import apply, plan
from games.nmbrs.plays import candidates
from games.web.nmbr9 import tutorial as nmbr9_tutorial
from games.web.nmbrs import tutorial as nmbrs_tutorial
from tests.factories import guest_of, sign_up

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NMBR9 = reverse("learn_game", args=["nmbr9"])
NMBRS = reverse("learn_game", args=["nmbrs"])

#: A way through the NMBR 9 tutorial: the 9 anywhere, the second 9 beside it, the 7 on
#: both, then the 6 and the 8 where they fit.
FIRST, SECOND, THIRD = "9@0,0r0", "9@3,0r0", "7@1,0r1"


def placed(*tiles: str) -> str:
    return ";".join(tiles)


def place(client, tiles: tuple[str, ...], at: str, **extra):
    """Post the placement ``at`` (its number is the card's) on the tutorial at ``tiles``."""
    spot = Placement.parse(at)
    data = {"placed": placed(*tiles), "x": spot.x, "y": spot.y, "rotation": spot.rotation}
    return client.post(NMBR9, data, **extra)


def alert(response) -> str:
    found = re.search(r'role="alert"[^>]*>([^<]*)<', response.text)
    return found.group(1).strip() if found else ""


def step(response) -> int:
    return int(re.search(r'data-step="(\d+)"', response.text).group(1))


def nothing_stored() -> None:
    assert User.objects.count() == 0 and Match.objects.count() == 0
    assert Move.objects.count() == 0 and Session.objects.count() == 0


def a_spot(tiles: tuple[str, ...], level: int | None = None) -> str:
    """A placement the step after ``tiles`` takes (on ``level``, if given)."""
    spots = nmbr9_tutorial.accepted(tuple(Placement.parse(t) for t in tiles))
    return str(next(p for p, on in spots if level is None or on == level))


# ------------------------------------------------------------------ the index, the offers


def test_it_lists_both_tutorials_with_a_line_each(client):
    page = client.get(reverse("learn"))
    assert page.status_code == 200
    assert f'href="{NMBR9}"' in page.text and f'href="{NMBRS}"' in page.text
    assert "Five tiles:" in page.text and "One turn:" in page.text


def test_a_game_without_a_tutorial_is_not_found(client):
    assert client.get(reverse("learn_game", args=["chess"])).status_code == 404


@pytest.mark.parametrize("game", ["nmbr9", "nmbrs"])
def test_each_rules_page_offers_its_tutorial(client, game):
    page = client.get(reverse("help", args=[game]))
    assert f'href="{reverse("learn_game", args=[game])}" data-learn' in page.text
    german = client.get(reverse("help", args=[game]), HTTP_ACCEPT_LANGUAGE="de")
    assert "Spielen lernen" in german.text


def test_a_new_account_is_led_to_the_tutorials_unless_it_came_from_somewhere(client):
    response = sign_up(client, "newcomer")
    assert response.status_code == 302 and response.url == reverse("learn")
    client.logout()
    response = sign_up(client, "another", QUERY_STRING="next=/lobby/")
    assert response.status_code == 302 and response.url == "/lobby/"


# ------------------------------------------------------------------ NMBR 9


def test_nmbr9_step_1_takes_the_first_tile_anywhere(client):
    page = client.get(NMBR9)
    assert page.status_code == 200 and step(page) == 1
    assert "The first tile goes anywhere" in page.text
    assert "data-spots" not in page.text  # anywhere: nothing to shade
    response = place(client, (), "9@-7,5r3")
    assert response.status_code == 302
    assert response.url == f"{NMBR9}?placed=9@-7,5r3"
    nothing_stored()


def test_nmbr9_every_step_opens_with_its_tile_on_a_spot_it_takes(client):
    tiles: tuple[str, ...] = (FIRST,)
    for number in nmbr9_tutorial.Nmbr9Tutorial.cards[1:]:
        page = client.get(NMBR9, {"placed": placed(*tiles)})
        assert step(page) == len(tiles) + 1
        assert 'data-ghost="legal"' in page.text and "data-error" not in page.text
        assert 'class="verdict ok"' in page.text
        x, y, rotation = (
            int(re.search(rf'id="turn"[^>]* data-{k}="(-?\d+)"', page.text)[1])
            for k in ("x", "y", "rotation")
        )
        moved = place(client, tiles, f"{number}@{x},{y}r{rotation}")
        assert moved.status_code == 302
        tiles = (*tiles, f"{number}@{x},{y}r{rotation}")
    assert "data-learned" in client.get(NMBR9, {"placed": placed(*tiles)}).text


def test_nmbr9_step_2_wants_a_touching_tile_that_leaves_room_on_top(client):
    tiles = (FIRST,)
    page = client.get(NMBR9, {"placed": placed(*tiles)})
    assert step(page) == 2 and "must touch another along an edge" in page.text
    # The tile starts on a spot the step takes, beside the first: nothing is refused yet.
    assert 'data-x="3" data-y="0"' in page.text and 'data-ghost="legal"' in page.text
    assert "Not adjacent" not in page.text and "data-spots" in page.text

    refused = place(client, tiles, "9@4,0r0")
    assert refused.status_code == 400 and step(refused) == 2
    assert alert(refused) == ("Not adjacent: it must share an edge with a tile on the same level.")
    # Legal, touching at a corner: no tile could lie on both, which the step wants.
    corner = place(client, tiles, "9@-1,-4r0")
    assert corner.status_code == 400 and step(corner) == 2
    assert alert(corner).startswith("It touches, but leave room on top")

    moved = place(client, tiles, SECOND)
    assert moved.status_code == 302 and moved.url == f"{NMBR9}?placed={placed(FIRST, SECOND)}"


def test_nmbr9_step_3_wants_the_tile_on_two_tiles_on_level_1(client):
    tiles = (FIRST, SECOND)
    page = client.get(NMBR9, {"placed": placed(*tiles)})
    assert step(page) == 3 and "put the 7 on both 9s" in page.text
    for at, said in (
        ("7@0,0r0", "Needs two tiles beneath: it would rest on a single tile."),
        ("7@1,1r1", "Overhang: part of the tile would hang over nothing."),
        ("7@0,-4r0", "This time put it on top of two tiles: level 1."),  # legal, on level 0
    ):
        refused = place(client, tiles, at)
        assert refused.status_code == 400 and step(refused) == 3 and alert(refused) == said
    moved = place(client, tiles, THIRD)
    assert moved.status_code == 302
    page = client.get(moved.url)
    assert step(page) == 4 and "Score <strong data-score>7</strong>" in page.text


def test_nmbr9_step_4_shows_what_the_tile_would_score(client):
    tiles = (FIRST, SECOND, THIRD)
    page = client.get(NMBR9, {"placed": placed(*tiles)})
    assert step(page) == 4 and "scores its number times its level" in page.text
    spot = Placement.parse(a_spot(tiles))
    shown = client.get(
        NMBR9, {"placed": placed(*tiles), "x": spot.x, "y": spot.y, "rotation": spot.rotation}
    )
    assert "Fits on level 0: no points." in shown.text
    on_top = client.get(NMBR9, {"placed": placed(FIRST, SECOND), "x": 1, "y": 0, "rotation": 1})
    assert "Fits on level 1: 7 × 1 = 7 points." in on_top.text
    assert place(client, tiles, str(spot)).status_code == 302


def test_nmbr9_the_last_card_ends_with_the_score_by_level_and_the_ways_on(client):
    tiles = (FIRST, SECOND, THIRD)
    tiles += (a_spot(tiles),)
    last = a_spot(tiles)
    done = client.get(place(client, tiles, last).url)
    assert done.status_code == 200 and 'data-step="6"' in done.text
    assert "Well done: your display scores 7 points." in done.text
    assert "(level 1: 7)" in done.text and "data-learned" in done.text
    assert f'action="{reverse("new_solo")}"' in done.text
    assert f'href="{reverse("new_solo")}?bot=medium"' in done.text
    # Nothing more to place.
    more = place(client, (*tiles, last), "9@20,20r0")
    assert more.status_code == 400
    nothing_stored()


def test_nmbr9_previews_and_moves_answer_the_part_of_the_page_they_change(client):
    tiles = (FIRST,)
    query = {"placed": placed(*tiles), "x": 3, "y": 0, "rotation": 0}
    turn = client.get(NMBR9, query, HTTP_HX_TARGET="turn", **HTMX)
    assert turn.status_code == 200 and turn.text.lstrip().startswith('<div id="turn"')
    assert 'data-ghost="legal"' in turn.text and "Fits on level 0: no points." in turn.text
    assert turn["HX-Replace-Url"] == f"{NMBR9}?placed=9@0,0r0&x=3&y=0&rotation=0"
    moved = place(client, tiles, SECOND, HTTP_HX_TARGET="learn", **HTMX)
    assert moved.status_code == 200 and moved.text.lstrip().startswith('<section id="learn"')
    assert moved["HX-Push-Url"] == f"{NMBR9}?placed={placed(FIRST, SECOND)}"
    refused = place(client, tiles, "9@4,0r0", HTTP_HX_TARGET="learn", **HTMX)
    assert refused.status_code == 400 and "HX-Push-Url" not in refused
    assert "Not adjacent" in alert(refused)
    # Back with nothing kept: htmx asks for the whole page.
    whole = client.get(NMBR9, query, HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HTMX)
    assert "<!doctype html>" in whole.text


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ({"placed": "9@0,0r0;9@9,9r0"}, "Its tile 2 cannot go there. Not adjacent:"),
        ({"placed": "9@0,0r0;9@-1,-4r0"}, "Its tile 2 cannot go there. It touches, but"),
        ({"placed": "5@0,0r0"}, "Card 1 of the tutorial is a 9, not 5@0,0r0."),
        ({"placed": "9m@0,0r0"}, "Card 1 of the tutorial is a 9"),
        ({"placed": "9@0,0r0;rubbish"}, "rubbish is not the place of a tile."),
        ({"placed": ";".join(["9@0,0r0"] * 6)}, "It has more tiles than the tutorial has cards."),
        ({"placed": "9@0,0r0", "x": "one", "y": "0", "rotation": "0"}, "x: "),
        ({"placed": "9@0,0r0", "x": "1000", "y": "0", "rotation": "0"}, "x: "),
        ({"x": "1", "y": "0"}, "rotation: "),
    ],
)
def test_nmbr9_an_address_that_is_not_a_game_of_the_tutorial_is_refused(client, query, said):
    for response in (client.get(NMBR9, query), client.post(NMBR9, query)):
        assert response.status_code == 400
        assert "This address is not a game of the tutorial." in response.text
        assert said in response.text
        assert f'href="{NMBR9}" data-restart' in response.text
    nothing_stored()


def test_nmbr9_a_move_without_a_spot_is_refused(client):
    response = client.post(NMBR9, {"placed": FIRST})
    assert response.status_code == 400 and step(response) == 2
    assert alert(response) == "Say where the tile goes: x, y and rotation."


def test_nmbr9_reads_in_german(client):
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    page = client.get(NMBR9, {"placed": FIRST}, **german)
    assert "NMBR 9 spielen lernen" in page.text and "lege die zweite 9 neben die erste" in page.text
    off = client.get(NMBR9, {"placed": FIRST, "x": 4, "y": 0, "rotation": 0}, **german)
    assert "Nicht angrenzend: es muss eine Kante" in off.text
    assert "Grün schattiert" in page.text and "Karte <strong>2</strong> von 5" in page.text
    refused = place(client, (FIRST, SECOND), "7@0,-4r0", **german)
    assert alert(refused) == "Lege es diesmal oben auf zwei Plättchen: auf Ebene 1."
    on_top = client.get(
        NMBR9, {"placed": placed(FIRST, SECOND), "x": 1, "y": 0, "rotation": 1}, **german
    )
    assert "Passt auf Ebene 1: 7 × 1 = 7 Punkte." in on_top.text
    bad = client.get(NMBR9, {"placed": "5@0,0r0"}, **german)
    assert "Karte 1 der Einführung ist eine 9" in bad.text


def test_every_nmbr9_step_can_be_completed_from_every_way_it_takes():
    """The lessons never lead to a step with nowhere to go: from every way the first two
    steps take (the first tile upright or turned), the next one takes a spot."""
    for rotation in range(4):
        first = (Placement(9, 0, 0, rotation),)
        seconds = nmbr9_tutorial.accepted(first)
        assert seconds
        for second, _level in seconds:
            assert nmbr9_tutorial.accepted((*first, second))


# ------------------------------------------------------------------ nmbrs!


def move(client, moves: tuple[str, ...], text: str, **extra):
    return client.post(NMBRS, {"moves": ";".join(moves), "move": text}, **extra)


def test_nmbrs_step_1_takes_the_discard(client):
    page = client.get(NMBRS)
    assert page.status_code == 200 and step(page) == 1
    assert "take its 16" in page.text
    assert 'data-move="take" class="learn-target"' in page.text
    passed = move(client, (), "pass")
    assert passed.status_code == 400 and step(passed) == 1
    assert alert(passed) == "This time take the 16: it makes a series with your 12 and 14."
    drawn = move(client, (), "draw")
    assert drawn.status_code == 400
    assert alert(drawn) == "First take the discard (16) or pass it on."
    taken = move(client, (), "take")
    assert taken.status_code == 302 and taken.url == f"{NMBRS}?moves=take"
    nothing_stored()


def test_nmbrs_step_2_lays_a_series_and_marks_what_to_click(client):
    page = client.get(NMBRS, {"moves": "take"})
    assert step(page) == 2
    marked = re.findall(r'class="pick learn-target"[^>]*data-pick="(\w+)"', page.text)
    assert marked == ["12", "14", "16"]
    picked = client.get(NMBRS, [("moves", "take"), ("pick", "12"), ("pick", "14"), ("pick", "16")])
    assert re.search(
        r'data-play="lay 12,14,16">.*?data-move="play" class="learn-target"', picked.text, re.S
    )
    # The rules' own word where a play is written out too early.
    early = client.get(NMBRS, {"moves": "take", "attempt": "extend 1: 35"})
    assert "You must lay a series of 3 or more cards before adding cards" in early.text
    refused = move(client, ("take",), "extend 1: 35")
    assert refused.status_code == 400 and step(refused) == 2
    assert alert(refused).startswith("You must lay a series of 3 or more cards")
    discarded = move(client, ("take",), "discard 12")
    assert discarded.status_code == 400
    assert alert(discarded) == "First lay your series: select 12, 14 and 16."
    laid = move(client, ("take",), "lay 12,14,16")
    assert laid.status_code == 302 and laid.url == f"{NMBRS}?moves=take;lay+12,14,16"


def test_nmbrs_steps_3_and_4_add_a_card_and_discard_then_say_what_it_scored(client):
    moves = ("take", "lay 12,14,16")
    page = client.get(NMBRS, {"moves": ";".join(moves)})
    assert step(page) == 3 and "add it to series 1" in page.text
    assert re.findall(r'class="pick learn-target"[^>]*data-pick="(\w+)"', page.text) == ["35"]
    off = move(client, moves, "discard 35")
    assert off.status_code == 400 and alert(off) == "Now add your 35 to series 1: 20, 25, 30."
    wrong = move(client, moves, "extend 1: 61")
    assert wrong.status_code == 400 and alert(wrong) == ("61 do not continue series 1 (step 5).")
    added = move(client, moves, "extend 1: 35")
    assert added.status_code == 302
    moves += ("extend 1: 35",)
    page = client.get(NMBRS, {"moves": ";".join(moves), "pick": "88"})
    assert step(page) == 4 and 'data-move="discard" class="secondary learn-target"' in page.text
    done = client.get(move(client, moves, "discard 88").url)
    assert done.status_code == 200 and "Well done: your turn scored 4 points." in done.text
    assert "data-learned" in done.text
    assert f'href="{reverse("new_solo")}?game=nmbrs&amp;bot=medium"' in done.text
    assert move(client, (*moves, "discard 88"), "take").status_code == 400
    nothing_stored()


def test_nmbrs_selections_answer_the_turn_and_keep_the_address(client):
    query = urlencode([("moves", "take"), ("pick", "12")])
    turn = client.get(f"{NMBRS}?{query}", HTTP_HX_TARGET="turn", **HTMX)
    assert turn.status_code == 200 and turn.text.lstrip().startswith('<div id="turn"')
    assert turn["HX-Replace-Url"] == f"{NMBRS}?moves=take&pick=12"
    moved = move(client, (), "take", HTTP_HX_TARGET="learn", **HTMX)
    assert moved.status_code == 200 and moved["HX-Push-Url"] == f"{NMBRS}?moves=take"


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ({"moves": "pass"}, "Its move 1, pass, is not the one the tutorial teaches."),
        ({"moves": "take;extend 1: 35"}, "Its move 2, extend 1: 35, is not the one"),
        ({"moves": "take;lay 12,14"}, "Its move 2 breaks a rule. A series needs at least 3"),
        ({"moves": "take;lay 12,14,16;extend 1: 35;discard 88;take"}, "It has more moves"),
        ({"moves": "nonsense"}, "Its move 1 breaks a rule. Unknown move nonsense"),
        ({"moves": "take", "pick": "<b>"}, "pick: not a card."),
    ],
)
def test_nmbrs_an_address_that_is_not_a_game_of_the_tutorial_is_refused(client, query, said):
    for response in (client.get(NMBRS, query), client.post(NMBRS, {**query, "move": "take"})):
        assert response.status_code == 400
        assert "This address is not a game of the tutorial." in response.text
        assert said in response.text
    nothing_stored()


def test_nmbrs_reads_in_german(client):
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    page = client.get(NMBRS, **german)
    assert "nmbrs! spielen lernen" in page.text and "nimm seine 16" in page.text
    assert "Offene Karte nehmen" in page.text and "Schritt <strong>1</strong> von 4" in page.text
    refused = move(client, ("take",), "extend 1: 35", **german)
    assert alert(refused).startswith("Du musst erst eine Reihe aus 3 oder mehr Karten auslegen")
    off = move(client, ("take",), "discard 12", **german)
    assert alert(off) == "Lege zuerst deine Reihe aus: wähle 12, 14 und 16."


def test_every_nmbrs_step_has_just_the_play_it_teaches():
    """The scripted position leaves each step the one play it teaches, so the way through
    is the one the sentences describe."""
    state = apply(nmbrs_tutorial.start(), 0, "take")
    for lesson, expected in zip(
        nmbrs_tutorial.LESSONS[1:3], ("lay 12,14,16", "extend 1: 35"), strict=True
    ):
        taught = set()
        for candidate in candidates(state, 0):
            if candidate.kind in lesson.kinds:
                with contextlib.suppress(IllegalMove):
                    plan(state, 0, candidate)
                    taught.add(str(candidate))
        assert taught == {expected}
        state = apply(state, 0, expected)


# ------------------------------------------------------------------ for everybody


def test_a_guest_and_an_account_learn_without_anything_stored(client, alice):
    client.post(reverse("new_solo"), {"game": "nmbr9"})
    guest = guest_of(client)
    users, matches = User.objects.count(), Match.objects.count()
    for tutorial, data in ((NMBR9, {"placed": "", "x": 0, "y": 0, "rotation": 0}),):
        assert client.post(tutorial, data).status_code == 302
    assert client.post(NMBRS, {"moves": "", "move": "take"}).status_code == 302
    assert guest_of(client) == guest
    client.force_login(alice)
    assert client.get(NMBR9).status_code == 200
    assert client.post(NMBRS, {"moves": "", "move": "take"}).status_code == 302
    assert (User.objects.count(), Match.objects.count()) == (users, matches)


def test_a_visitor_going_through_both_tutorials_creates_nothing(client):
    tiles: tuple[str, ...] = ()
    for _card in nmbr9_tutorial.LESSONS:
        at = a_spot(tiles) if tiles else "9@0,0r0"
        response = place(client, tiles, at)
        assert response.status_code == 302
        tiles += (at,)
    moves: tuple[str, ...] = ()
    for text in ("take", "lay 12,14,16", "extend 1: 35", "discard 61"):
        assert move(client, moves, text).status_code == 302
        moves += (text,)
    nothing_stored()
    assert settings.SESSION_COOKIE_NAME not in client.cookies


def test_the_tutorial_modules_examples_hold():
    with translation.override("en"):
        for module in (nmbr9_tutorial, nmbrs_tutorial):
            assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0


def test_nmbr9_spots_near_the_edge_of_the_display_are_only_the_legal_ones(client):
    """The spots a step takes are worked out once for a display moved to the middle; moved
    back to the edge, those beyond it are not offered."""
    tiles = ("9@58,0r0",)
    board_tiles = tuple(Placement.parse(t) for t in tiles)
    spots = nmbr9_tutorial.accepted(board_tiles)
    assert spots and all(Board(board_tiles).is_legal(p) for p, _level in spots)
    assert nmbr9_tutorial.accepted((Placement.parse("9@0,0r0"),))[0][0].x < 3
