"""A move made for a player as their time ran out says so in the match log, for the players
and for spectators alike, in both games; the player's own moves, and the answers they chose
to give always, do not."""

import html
import re

import pytest
from django.urls import reverse

from games import services
from games.models import Move
from tests.factories import make_due, play, seat_of, state

pytestmark = pytest.mark.django_db

MARK = "(time ran out: played for them)"


def log_of(client, match, user=None, language: str = "en") -> list[tuple[str, bool]]:
    """The match log as ``user`` (None: a visitor) sees it, newest first: each line's words
    and whether it is marked as made as time ran out."""
    if user is None:
        client.logout()
    else:
        client.force_login(user)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).text
    log = re.search(r'<ol class="log".*?</ol>', page, re.S)
    assert log is not None, "no match log"
    lines = re.findall(r"<li[^>]*>(.*?)</li>", log.group(0), re.S)
    return [
        (html.unescape(re.sub(r"<[^>]+>", "", line)).strip(), "data-timed-out" in line)
        for line in lines
    ]


def test_nmbr9_marks_the_tile_placed_as_time_ran_out(client, alice, bob, carol):
    match = services.start_realtime([alice, bob], game="nmbr9", speed="30s")
    play(match, alice)
    play(match, bob)  # round 1: both in time
    play(match, alice)
    make_due(seat_of(match, bob))  # round 2: bob's time ran out
    assert services.expire(seat_of(match, bob).pk)
    assert list(Move.objects.filter(match=match).values_list("timed_out", flat=True)) == [
        False,
        False,
        False,
        True,
    ]
    for reader in (alice, bob, carol, None):  # the players, a spectator, a visitor
        log = log_of(client, match, reader)
        marked = [words for words, timed_out in log if timed_out]
        assert len(marked) == 1, (reader, log)
        assert marked[0].startswith("Round 2 bob ") and marked[0].endswith(MARK)
        for words, timed_out in log:
            if not timed_out:
                assert MARK not in words
                assert words.startswith(("Round 1 ", "Round 2 alice ")), log
    german = log_of(client, match, carol, "de")
    assert [w for w, t in german if t][0].endswith("(Zeit abgelaufen: automatisch gespielt)")
    # bob's own page warns him that one more miss puts him out; the others' pages do not
    for reader, warned in ((bob, True), (alice, False), (carol, False)):
        client.force_login(reader)
        page = client.get(match.get_absolute_url()).text
        assert ("data-strike-warning" in page) == warned, reader


def test_nmbrs_marks_the_answer_given_as_time_ran_out_not_a_chosen_one(client, alice, bob, carol):
    match = services.start_realtime([alice, bob, carol], game="nmbrs", speed="30s")
    players = [seat.player for seat in match.seats.order_by("index")]
    first = players[state(match).current]
    services.play(match.pk, first, "pass", 0)  # the discard: offered to the next player
    second = players[state(match).offer_to]
    third = next(p for p in players if p not in (first, second))
    services.set_prefs(match.pk, third, always_pass=True)  # answers offers by itself
    make_due(seat_of(match, second))
    assert services.expire(seat_of(match, second).pk)
    moves = Move.objects.filter(match=match).order_by("ply")
    assert list(moves.values_list("seat__player__username", "text", "auto", "timed_out")) == [
        (first.username, "pass", False, False),
        (second.username, "pass", True, True),
        (third.username, "pass", True, False),
    ]
    for reader in (*players, None):  # the players (carol among them) and a visitor
        log = log_of(client, match, reader)
        passed = {words.split()[2]: timed_out for words, timed_out in log if " passed " in words}
        assert passed == {first.username: False, second.username: True, third.username: False}
        assert sum(timed_out for _, timed_out in log) == 1


def test_the_replay_marks_the_move_made_as_time_ran_out_in_both_games(client, alice, bob, carol):
    match = services.start_realtime([alice, bob], game="nmbr9", speed="30s")
    play(match, alice)
    play(match, bob)
    play(match, alice)
    make_due(seat_of(match, bob))  # round 2: bob's time ran out
    assert services.expire(seat_of(match, bob).pk)
    services.resign(match.pk, alice)  # over: the replay opens
    client.force_login(carol)
    url = reverse("replay", args=[match.pk])
    for round, marked in ((1, 0), (2, 1)):
        page = client.get(url, {"round": round}).text
        assert page.count("data-timed-out") == marked, round
    page = client.get(url, {"round": 2}).text
    turns = re.search(r'data-replay-turns="bob">(.*?)</li>', page, re.S).group(1)
    assert MARK in turns and "data-timed-out" in turns
    alices = re.search(r'data-replay-turns="alice">(.*?)</li>', page, re.S).group(1)
    assert MARK not in alices
    german = client.get(url, {"round": 2}, HTTP_ACCEPT_LANGUAGE="de").text
    assert "(Zeit abgelaufen: automatisch gespielt)" in german

    cards = services.start_realtime([alice, bob], game="nmbrs", speed="30s")
    players = [seat.player for seat in cards.seats.order_by("index")]
    first = players[state(cards).current]
    services.play(cards.pk, first, "pass", 0)
    second = players[state(cards).offer_to]
    make_due(seat_of(cards, second))
    assert services.expire(seat_of(cards, second).pk)
    services.resign(cards.pk, first)
    url = reverse("replay", args=[cards.pk])
    for ply, marked in ((1, 0), (2, 1)):
        page = client.get(url, {"ply": ply}).text
        move = re.search(r"<p data-replay-move>(.*?)</p>", page, re.S).group(1)
        assert (MARK in move) == bool(marked), (ply, move)
