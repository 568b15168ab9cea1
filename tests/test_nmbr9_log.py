"""The NMBR 9 match log: every step of a turn in words (the same words as the replay), each
with its move notation on hover, and never more than the viewer's view holds."""

import copy
import html
import re

import pytest
from django.urls import reverse

from games import services
from games.models import Match
from games.nmbr9 import Turn
from games.nmbr9.policy import fallback_turn
from games.nmbr9.turn import Build, Fill, Move, Place
from games.nmbr9.views import Logged
from games.web.nmbr9.words import Said, StepWords
from tests.factories import a_turn_moving, make_match, replay_steps, state

pytestmark = pytest.mark.django_db


def log_of(client, match, user, language: str = "en") -> list[tuple[str, str, str]]:
    """The match log ``user`` sees, newest first: (round, words, notation on hover)."""
    client.force_login(user)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).text
    log = re.search(r'<ol class="log".*?</ol>', page, re.S)
    if log is None:
        return []
    entry = re.compile(
        r'<li(?: title="([^"]*)" data-notation)?><span class="log-when">([^<]*)</span> (.*?)</li>'
    )
    return [
        (when, html.unescape(words), notation)
        for notation, when, words in entry.findall(log.group(0))
    ]


def made(match, user) -> int:
    record = services.load(match)
    return record.made_by(record.seat_of(user))


def play_turn(match, user, turn) -> None:
    services.play(match.pk, user, str(turn), made(match, user))


def levels(game, player: int, turn: Turn) -> list[int]:
    """The level each piece ``turn`` builds goes to, read from the display after it."""
    after = copy.deepcopy(game)
    after.play(player, turn)
    tiles = dict(after.board(player).tiles)
    found = []
    for step in turn.steps:
        if isinstance(step, Move):
            found.append(tiles[step.target])
        elif isinstance(step, Place | Fill | Build):
            found.append(tiles[step.placement])
    return found


def with_filler(game, player: int, filler: str) -> Turn:
    """The card's tile where the fallback puts it, then ``filler`` where it fits."""
    place = fallback_turn(game, player).steps[0]
    board = game.board(player)
    board.place(place.placement)
    return Turn((place, Fill(board.legal_placements(filler)[0])))


def using(game, player: int, special: str) -> Turn | None:
    """A turn placing the card's tile with ``special``, if there is one."""
    for turn in game.legal_turns(player):
        if isinstance(turn.main, Place) and turn.main.specials == (special,):
            return turn
    return None


def words_of(name: str, number: int | None, step, level: int | None) -> str:
    """What the log should say of ``step`` (the card's tile is a ``number``)."""
    if isinstance(step, Fill):
        return f"{name} laid gap filler {step.placement.piece} on level {level}."
    if isinstance(step, Move):
        return f"{name} moved the {step.source.number} to level {level}."
    if isinstance(step, Build):
        return f"{name} built the reserved {step.placement.number} on level {level}."
    if step.specials == ("black",):
        return f'{name} placed the mirrored {number} on level {level} using "black side".'
    if step.specials == ("one",):
        return f'{name} placed the {number} on level {level} using "one".'
    assert step.specials == ()
    return f"{name} placed the {number} on level {level}."


def newest_first(expected: list[tuple[int, int, str, str]]) -> list[tuple[str, str, str]]:
    """Log entries (round, player, notation, words), oldest first, as the log lists them:
    by round, then player, then the order of the player's steps, newest first."""
    order = {id(entry): n for n, entry in enumerate(expected)}
    ordered = sorted(expected, key=lambda e: (e[0], e[1], order[id(e)]), reverse=True)
    return [(f"Round {round}", words, notation) for round, _, notation, words in ordered]


def test_every_step_of_a_turn_is_logged_in_words_with_its_notation(client, alice, bob):
    """Gap fillers, the special tiles "black side", "one" and "move": one entry per step,
    newest first, each with the step's notation on hover; the other player sees a round's
    steps once the round is over, never before."""
    match = make_match(alice, bob, fillers=True, specials=["black", "one", "move"])
    expected = []  # (round, player, notation, words), oldest first
    plan = {"alice": ["filler", "black", "one"], "bob": ["filler", "move"]}
    round = 0
    while plan["alice"] or plan["bob"]:
        round += 1
        assert round <= 12, plan
        for user, index in ((alice, 0), (bob, 1)):
            game = state(match)
            want = plan[user.username][0] if plan[user.username] else None
            turn = None
            if want == "filler":
                turn = with_filler(game, index, "F1" if index == 0 else "F2")
            elif want in ("black", "one"):
                turn = using(game, index, want)
            elif want == "move":
                tile = next(p for p, _ in game.board(index).tiles if p.number is not None)
                turn = a_turn_moving(game, index, tile)[0]
            if turn is None:
                turn = fallback_turn(game, index)
            else:
                plan[user.username].pop(0)
            number = game.current_number(index)
            for step, level in zip(turn.steps, levels(game, index, turn), strict=True):
                words = words_of(user.username, number, step, level)
                expected.append((round, index, str(step), words))
            play_turn(match, user, turn)
            if index == 0:
                # alice has played this round, bob not yet: bob sees none of her turn
                assert not [e for e in log_of(client, match, bob) if e[0] == f"Round {round}"]
                mine = [e for e in log_of(client, match, alice) if e[0] == f"Round {round}"]
                assert len(mine) == len(turn.steps)
    assert log_of(client, match, alice) == newest_first(expected)
    assert log_of(client, match, bob) == newest_first(expected)


def test_the_log_and_the_replay_of_a_2_of_3_match_with_a_reserved_tile(client, alice, bob):
    """Rejects, a card rejected by the rules, a tile set aside and built later. Another
    player's reserved tile is a secret until it is built: bob reads that alice reserved a
    tile, not which one, nor does the hover say more."""
    match = make_match(alice, bob, variant="two_of_three", specials=["reserve"])
    reserved = state(match).current_number(0)
    services.commit(match.pk, alice, "build", 0)
    play_turn(match, alice, "reserve")
    play_turn(match, bob, "reject")
    reserve = (1, 0, "reserve", f"alice reserved the {reserved}.")
    secret = (1, 0, "reserve", "alice reserved a tile.")
    reject = (1, 1, "reject", f"bob rejected the {reserved}.")
    assert log_of(client, match, alice) == newest_first([reserve, reject])
    assert log_of(client, match, bob) == newest_first([secret, reject])

    # The second card: alice builds it and then the reserved tile; bob must build it, and
    # the third card too, which the rules reject for alice.
    game = state(match)
    place = fallback_turn(game, 0, reject=False).steps[0]
    board = game.board(0)
    board.place(place.placement)
    turn = Turn((place, Build(board.legal_placements(reserved)[0])))
    card = game.current_number(0)
    alices = [
        (1, 0, str(step), words_of("alice", card, step, level))
        for step, level in zip(turn.steps, levels(game, 0, turn), strict=True)
    ]
    services.commit(match.pk, alice, "build", made(match, alice))
    play_turn(match, alice, turn)
    bobs = [reject]
    for _ in range(2):
        game = state(match)
        bob_turn, card = fallback_turn(game, 1), game.current_number(1)
        (level,) = levels(game, 1, bob_turn)
        bobs.append((1, 1, str(bob_turn), words_of("bob", card, bob_turn.steps[0], level)))
        play_turn(match, bob, bob_turn)
    forced = (1, 0, "", f"alice had to reject the {card} (one card of three is rejected).")
    assert log_of(client, match, alice) == newest_first([reserve, *alices, forced, *bobs])
    assert log_of(client, match, bob) == newest_first([secret, *alices, forced, *bobs])

    while Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE:
        for user, index in ((alice, 0), (bob, 1)):
            game = state(match)
            decision = game.decision(index)
            if decision is None:
                continue
            if decision.may_reject:
                services.commit(match.pk, user, "build", made(match, user))
            play_turn(match, user, fallback_turn(game, index, reject=False))
    # The replay's steps of round 1 are the log's, in the order they were played.
    replay = replay_steps(client.get(reverse("replay", args=[match.pk]), {"round": 1}).text)
    assert [(n, html.unescape(w)) for n, w in replay["alice"]] == [
        (notation, words) for *_, notation, words in [reserve, *alices, forced]
    ]
    assert [(n, w) for n, w in replay["bob"]] == [(n, w) for *_, n, w in bobs]
    # The match is over: every reserved tile is known.
    assert state(match).view(1).displays[0].log[0].card == reserved


def test_in_free_pace_the_log_tells_nothing_beyond_the_viewers_own_round(client, alice, bob):
    match = make_match(alice, bob, pace="free", variant="two_of_three")
    card = state(match).current_number(0)
    play_turn(match, alice, "reject")
    for _ in range(2):  # the second and third cards must be built
        play_turn(match, alice, fallback_turn(state(match), 0))
    assert len(log_of(client, match, alice)) == 3
    assert log_of(client, match, bob) == []
    play_turn(match, bob, "reject")
    assert log_of(client, match, bob) == [
        ("Round 1", f"bob rejected the {card}.", "reject"),
        ("Round 1", f"alice rejected the {card}.", "reject"),
    ]


def test_the_log_reads_in_german(client, alice, bob):
    match = make_match(alice, bob, fillers=True, specials=["black", "one"])
    game = state(match)
    play_turn(match, alice, with_filler(game, 0, "F1"))
    play_turn(match, bob, fallback_turn(game, 1))
    game = state(match)
    black, bobs = using(game, 0, "black"), fallback_turn(game, 1)
    play_turn(match, alice, black)
    play_turn(match, bob, bobs)
    log = log_of(client, match, bob, "de")
    words = [w for _, w, _ in log]
    filler = r"alice hat den Lückenfüller F1 auf Ebene \d gelegt\."
    assert any(re.fullmatch(filler, w) for w in words), words
    number = black.main.placement.number
    mirrored = rf"alice hat eine gespiegelte {number} mit „schwarze Seite“ auf Ebene \d gelegt\."
    assert re.fullmatch(mirrored, log[1][1]), log
    assert {when for when, _, _ in log} == {"Runde 1", "Runde 2"}
    assert (log[0][2], log[1][2]) == (str(bobs), str(black))  # the notation is not translated


def test_the_words_of_steps_the_log_rarely_shows():
    words = StepWords()
    assert words("carol", Logged(4, None)) == [
        Said("carol could build none of the cards shown and skipped the round.", "")
    ]
    both = Turn.parse("place 7@3,-2r1 with one,loose")
    assert words("carol", Logged(2, both, (1,))) == [
        Said('carol placed the 7 on level 1 using "one", "loose".', str(both))
    ]
