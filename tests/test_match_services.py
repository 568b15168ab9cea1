"""Match services called directly (no worker): creation, invitations, play, expiry, Elo.

Every test checks the database after the call, not only the return value.
"""

import copy
import json
from collections import Counter
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail.backends import locmem
from django.urls import reverse
from django.utils import timezone

from games import ratings, services
from games.infra import notifications, sweep
from games.models import (
    Match,
    MatchState,
    Move,
    Notification,
    Profile,
    Rating,
    RatingChange,
    Seat,
)
from games.nmbr9 import Board, Game, Placement, deal
from games.nmbr9.policy import choose, fallback_placement
from games.services import MoveRefused
from tests.factories import (
    challenge,
    choice,
    game_of,
    make_due,
    make_match,
    play,
    play_to_end,
    ply_of,
    said,
    seat_of,
)

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


# ------------------------------------------------------------------ helpers


def your_move(match, user) -> int:
    return said(player=user, match=match).count(f"Your move in {match}.")


@pytest.fixture
def dave(db) -> User:
    return User.objects.create_user("dave", "dave@example.com", "a-Long-pa55word")


@pytest.fixture
def eager_tasks():
    """Celery tasks queued on commit run at once, in this process (no worker, no Redis)."""
    from nmbr9site.celery import app

    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


# ------------------------------------------------------------------ creating


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"players": 1, "invite": [], "open": True}, "2 to 6 players"),
        ({"players": 7, "invite": [], "open": True}, "2 to 6 players"),
        ({"players": 2, "invite": ["nobody"]}, "No player is called nobody"),
        ({"players": 2, "invite": ["alice"]}, "invite somebody else"),
        ({"players": 2, "invite": ["ALICE"]}, "invite somebody else"),
        ({"players": 2, "invite": ["bob", "carol"]}, "room for 1 invitation."),
        ({"players": 3, "invite": ["bob"], "open": False}, "Invite a player for every seat"),
        ({"players": 2, "invite": ["bob"], "time_control": "2h"}, "time per move"),
        ({"players": 2, "invite": ["bob"], "options": {"pace": "fast"}}, "Pace must be"),
        ({"players": 2, "invite": ["bob"], "options": {"removed": 5}}, "Removed must be 0-4"),
        ({"players": 5, "invite": [], "open": True, "options": {"variant": "two_of_three"}}, "1-4"),
    ],
)
def test_create_match_refuses_bad_settings_and_creates_nothing(alice, bob, carol, changes, message):
    arguments = {"options": {"pace": "rounds"}, "time_control": "1h", "rated": True} | changes
    with pytest.raises(MoveRefused, match=message):
        services.create_match(alice, **arguments)
    assert Match.objects.count() == 0
    assert Seat.objects.count() == 0
    assert Notification.objects.count() == 0


def test_invitations_find_players_whatever_the_capitals(alice, bob, carol):
    """Names are unique whatever their capitals: "Bob" is bob, and "bob, BOB" one invitation."""
    match = services.create_match(
        alice, players=3, time_control="1d", rated=False, invite=["Bob", "bob", "CAROL"]
    )
    assert sorted(match.seats.values_list("player__username", flat=True)) == [
        "alice",
        "bob",
        "carol",
    ]


def test_invited_seats_wait_for_the_invitees_who_are_notified(alice, bob, carol):
    match = services.create_match(
        alice,
        players=3,
        options={"pace": "free"},
        time_control="12h",
        rated=False,
        invite=["bob", "carol"],
    )
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING and match.started is None
    assert match.time_per_move == timedelta(hours=12)
    states = [(s.player.username, s.index, s.state) for s in match.seats.order_by("index")]
    assert states == [("alice", 0, "playing"), ("bob", 1, "invited"), ("carol", 2, "invited")]
    assert all(s.deadline is None for s in match.seats.all())
    for user in (bob, carol):
        assert Notification.objects.filter(player=user, match=match).count() == 1
    assert not Notification.objects.filter(player=alice).exists()


def test_invitees_accept_by_joining_and_the_match_starts_when_all_have(alice, bob, carol):
    match = services.create_match(
        alice,
        players=3,
        options={"pace": "rounds"},
        time_control="1h",
        rated=True,
        invite=["bob", "carol"],
    )
    services.join(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    assert seat_of(match, bob).state == Seat.State.PLAYING
    assert seat_of(match, carol).state == Seat.State.INVITED
    assert Seat.objects.filter(deadline__isnull=False).count() == 0

    before = timezone.now()
    services.join(match.pk, carol)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert before <= match.started <= timezone.now()
    seats = list(match.seats.all())
    assert [s.state for s in seats] == ["playing"] * 3
    assert all(s.deadline == match.started + HOUR for s in seats)
    assert all(s.strikes == 0 and s.extensions_left == 2 for s in seats)

    with pytest.raises(MoveRefused, match="not waiting"):
        services.join(match.pk, carol)


def test_declining_an_invitation_cancels_the_match_and_tells_everybody(alice, bob, carol):
    match = services.create_match(
        alice,
        players=3,
        options={"pace": "rounds"},
        time_control="1h",
        rated=True,
        invite=["bob", "carol"],
    )
    with pytest.raises(MoveRefused, match="no invitation of yours"):
        services.decline(match.pk, alice)
    services.decline(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED and match.finished is not None
    for user in (alice, bob, carol):
        assert "bob declined the match." in said(player=user, match=match)
    with pytest.raises(MoveRefused):
        services.decline(match.pk, carol)
    with pytest.raises(MoveRefused, match="not waiting"):
        services.join(match.pk, carol)
    assert seat_of(match, carol).state == Seat.State.INVITED


def test_only_the_creator_cancels_and_only_while_waiting(alice, bob, carol):
    match = services.create_match(
        alice, players=2, options={"pace": "rounds"}, time_control="1h", rated=True, invite=["bob"]
    )
    with pytest.raises(MoveRefused, match="Only the player who created"):
        services.cancel(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    services.cancel(match.pk, alice)
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert said().count("alice cancelled the match.") == 2

    started = make_match(alice, carol)
    with pytest.raises(MoveRefused, match="resign instead"):
        services.cancel(started.pk, alice)
    started.refresh_from_db()
    assert started.status == Match.Status.ACTIVE and started.finished is None


def test_an_open_seek_fills_up_and_starts(alice, bob, carol, dave):
    match = services.create_match(
        alice, players=3, options={"pace": "free"}, time_control="1d", rated=False, open=True
    )
    assert [s.player_id for s in match.seats.all()] == [alice.pk]
    with pytest.raises(MoveRefused, match="already in this match"):
        services.join(match.pk, alice)

    services.join(match.pk, bob)
    with pytest.raises(MoveRefused, match="already in this match"):
        services.join(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    assert [(s.player_id, s.index) for s in match.seats.all()] == [(alice.pk, 0), (bob.pk, 1)]

    services.join(match.pk, carol)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.started is not None
    seats = list(match.seats.all())
    assert [(s.player_id, s.index, s.state) for s in seats] == [
        (alice.pk, 0, "playing"),
        (bob.pk, 1, "playing"),
        (carol.pk, 2, "playing"),
    ]
    assert all(s.deadline == match.started + timedelta(days=1) for s in seats)

    with pytest.raises(MoveRefused, match="not waiting"):
        services.join(match.pk, dave)
    assert match.seats.count() == 3


def test_joining_a_full_or_closed_match_is_refused(alice, bob, carol, dave):
    full = services.create_match(
        alice,
        players=2,
        options={"pace": "rounds"},
        time_control="1h",
        rated=True,
        invite=["bob"],
        open=True,
    )
    with pytest.raises(MoveRefused, match="no free seat"):
        services.join(full.pk, carol)
    closed = services.create_match(
        alice,
        players=3,
        options={"pace": "rounds"},
        time_control="1h",
        rated=True,
        invite=["bob", "carol"],
    )
    with pytest.raises(MoveRefused, match="no free seat"):
        services.join(closed.pk, dave)
    assert not Seat.objects.filter(player=carol, match=full).exists()
    assert not Seat.objects.filter(player=dave).exists()
    for match in (full, closed):
        match.refresh_from_db()
        assert match.status == Match.Status.WAITING


# ------------------------------------------------------------------ pace


def test_rounds_pace_waits_for_everybody_then_everybody_gets_a_new_deadline(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    started_deadline = seat_of(match, bob).deadline

    play(match, alice)
    a, b = seat_of(match, alice), seat_of(match, bob)
    assert (a.progress, a.deadline) == (1, None)
    assert (b.progress, b.deadline) == (0, started_deadline)
    game = game_of(match)
    assert game.current_number(a.index) is None
    assert game.round_of(b.index) == 1 and game.completed_rounds() == 0

    placement, ply = choice(match, bob)
    with pytest.raises(MoveRefused, match="waiting for the other players"):
        services.play(match.pk, alice, "place 0@0,0r0", ply_of(match, alice))
    with pytest.raises(MoveRefused, match="out of date"):
        services.play(match.pk, alice, "place 0@0,0r0", ply_of(match, alice) + 1)
    assert Move.objects.filter(seat=a).count() == 1

    before = timezone.now()
    services.play(match.pk, bob, f"place {placement}", ply)
    after = timezone.now()
    a, b = seat_of(match, alice), seat_of(match, bob)
    assert a.progress == b.progress == 1
    assert a.deadline == b.deadline
    assert before + HOUR <= a.deadline <= after + HOUR
    game = game_of(match)
    cards, _ = deal(7)
    assert game.completed_rounds() == 1
    assert game.current_number(0) == game.current_number(1) == cards[1]


def test_free_pace_lets_a_player_move_ahead_alone(alice, bob):
    match = make_match(alice, bob, pace="free")
    bob_deadline = seat_of(match, bob).deadline
    for round in (1, 2, 3):
        before = timezone.now()
        play(match, alice)
        a = seat_of(match, alice)
        assert a.progress == round
        assert before + HOUR <= a.deadline <= timezone.now() + HOUR
    assert list(Move.objects.filter(match=match).values_list("ply", "seat__player")) == [
        (0, alice.pk),
        (1, alice.pk),
        (2, alice.pk),
    ]
    b = seat_of(match, bob)
    assert (b.progress, b.deadline) == (0, bob_deadline)
    game = game_of(match)
    assert game.round_of(0) == 4 and game.round_of(1) == 1


def test_a_double_submit_of_the_same_tile_is_accepted_once(alice, bob):
    match = make_match(alice, bob, pace="free")
    placement, ply = choice(match, alice)
    services.play(match.pk, alice, f"place {placement}", ply)
    view = services.play(match.pk, alice, f"place {placement}", ply)
    assert view.view.displays[0].progress == 1 and view.ply == 1
    assert Move.objects.filter(seat__player=alice).count() == 1
    moved = Placement(placement.number, placement.x + 5, placement.y, placement.rotation)
    with pytest.raises(MoveRefused, match="moved since this page was drawn"):
        services.play(match.pk, alice, f"place {moved}", ply)
    assert seat_of(match, alice).progress == 1


def test_the_state_after_a_committed_move_is_kept_for_the_next_look(
    alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    from games.services.match import record

    match = make_match(alice, bob, pace="free")
    placement, ply = choice(match, alice)
    with django_capture_on_commit_callbacks(execute=True):
        services.play(match.pk, alice, f"place {placement}", ply)
    replays = []
    monkeypatch.setattr(record, "_replay", lambda *args: replays.append(args))
    view = services.view_match(match.pk, alice)
    assert replays == [] and view.ply == 1 and view.view.displays[0].progress == 1
    monkeypatch.undo()
    fresh = record._replay(match, view.seats, record.moves_of(match), record.rules_of(match))
    assert services.load(match).state.view(0) == fresh.state.view(0)


def test_moves_made_in_another_process_are_replayed_from_the_state_kept_here(
    alice, bob, monkeypatch
):
    """A web process that kept a match's state sees moves another process committed since:
    it carries its state on with those moves, without setting the game up again, and ends
    where a replay from the start does."""
    from games.services.match import record

    match = make_match(alice, bob, pace="free")
    for user in (alice, bob, alice):
        play(match, user)
    services.load(match)  # kept here, with three moves
    # two moves committed by another process: rows this process has not seen played
    state = copy.deepcopy(services.load(match).state)
    seats = {seat.index: seat for seat in Seat.objects.filter(match=match)}
    for index, ply in ((1, 3), (0, 4)):
        placement = choose(state.board(index), state.current_number(index))
        state.play(index, record.rules_of(match).parse_move(f"place {placement}"))
        Move.objects.create(match=match, ply=ply, seat=seats[index], text=f"place {placement}")
    rules = record.rules_of(match)
    setups = []
    original = type(rules).setup
    monkeypatch.setattr(
        type(rules), "setup", lambda self, *a: setups.append(a) or original(self, *a)
    )
    view = services.view_match(match.pk, bob)
    assert setups == [] and view.ply == 2  # bob's own moves: the match has 5
    monkeypatch.undo()
    fresh = record._replay(match, view.seats, record.moves_of(match), rules)
    for index in (0, 1):
        assert services.load(match).state.view(index) == fresh.state.view(index)
    assert services.load(match).state.board(0) == state.board(0)


def test_a_move_by_another_player_does_not_make_a_page_out_of_date(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    (for_alice, ply), (for_bob, _) = choice(match, alice), choice(match, bob)
    services.play(match.pk, bob, f"place {for_bob}", ply)
    services.play(match.pk, alice, f"place {for_alice}", ply)  # her page knew ply 0
    assert [s.progress for s in match.seats.all()] == [1, 1]


def test_a_move_the_game_refuses_changes_nothing_and_says_why(alice, bob):
    match = make_match(alice, bob, pace="free")
    number = game_of(match).current_number(0)
    with pytest.raises(MoveRefused, match="the tile to place is a") as refused:
        services.play(match.pk, alice, f"place {(number + 1) % 10}@0,0r0", 0)
    assert refused.value.code
    with pytest.raises(MoveRefused, match="not a"):
        services.play(match.pk, alice, "place somewhere", 0)
    assert not Move.objects.exists() and seat_of(match, alice).progress == 0


# ------------------------------------------------------------------ expiry


@pytest.mark.parametrize("pace", ["rounds", "free"])
def test_expire_places_the_fallback_tile_and_gives_a_strike(alice, bob, pace):
    match = make_match(alice, bob, pace=pace)
    bob_deadline = seat_of(match, bob).deadline
    seat = seat_of(match, alice)
    make_due(seat)
    expected = fallback_placement(Game(2, seed=7, pace=pace), seat.index)

    before = timezone.now()
    assert services.expire(seat.pk) is True
    seat.refresh_from_db()
    move = Move.objects.get(seat=seat)
    assert (move.ply, move.text, move.auto, move.timed_out) == (0, f"place {expected}", True, True)
    assert Board().place(expected) == 0
    assert (seat.progress, seat.strikes, seat.total_strikes, seat.state) == (1, 1, 1, "playing")
    if pace == "free":
        assert before + HOUR <= seat.deadline <= timezone.now() + HOUR
    else:
        assert seat.deadline is None  # waiting for bob's tile of round 1
    assert seat_of(match, bob).deadline == bob_deadline
    assert any(t.startswith("Your time ran out") for t in said(player=alice, match=match))


@pytest.mark.parametrize("act", ["move", "extend"])
def test_acting_after_the_deadline_before_the_sweep_is_refused_and_expires_the_seat(
    alice, bob, act
):
    """The sweep may be late (or Celery away): a move or an extension asked for after the
    deadline does what the sweep would have done, and is refused."""
    match = make_match(alice, bob, pace="free")
    seat = seat_of(match, alice)
    make_due(seat)
    expected = fallback_placement(Game(2, seed=7, pace="free"), seat.index)
    with pytest.raises(MoveRefused, match="had run out"):
        if act == "move":
            play(match, alice)
        else:
            services.extend(match.pk, alice)
    seat.refresh_from_db()
    move = Move.objects.get(seat=seat)
    assert (move.text, move.auto) == (f"place {expected}", True)
    assert (seat.progress, seat.strikes, seat.extensions_left) == (1, 1, 2)
    assert seat.deadline > timezone.now()  # the next tile's, not the old one plus a day
    assert services.expire(seat.pk) is False  # the sweep, coming later, finds nothing due
    play(match, alice)  # in time for the next tile
    assert Move.objects.filter(seat=seat, auto=False, timed_out=False).count() == 1


def test_expiring_twice_acts_once(alice, bob):
    match = make_match(alice, bob, pace="free")
    seat = seat_of(match, alice)
    make_due(seat)
    assert services.expire(seat.pk) is True
    assert services.expire(seat.pk) is False
    seat.refresh_from_db()
    assert Move.objects.filter(seat=seat).count() == 1
    assert (seat.progress, seat.strikes, seat.total_strikes) == (1, 1, 1)
    assert seat.deadline > timezone.now()


def test_expire_does_nothing_before_the_deadline(alice, bob):
    match = make_match(alice, bob)
    seat = seat_of(match, alice)
    deadline = seat.deadline
    assert services.expire(seat.pk) is False
    assert services.expire(seat.pk, now=deadline - timedelta(seconds=1)) is False
    seat.refresh_from_db()
    assert seat.deadline == deadline and seat.strikes == 0 and seat.progress == 0
    assert not Move.objects.exists()


def test_expire_does_nothing_when_the_match_is_not_active(alice, bob):
    match = make_match(alice, bob)
    seat = seat_of(match, alice)
    make_due(seat)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED)
    assert services.expire(seat.pk) is False
    assert not Move.objects.exists()
    assert sweep.due_seats() == []


def test_two_expiries_in_a_row_drop_the_seat_and_end_a_match_of_two(alice, bob):
    match = make_match(alice, bob, pace="rounds", removed=4)
    a = seat_of(match, alice)
    make_due(a)
    assert services.expire(a.pk)
    play(match, bob)  # round 1 complete
    a.refresh_from_db()
    assert a.strikes == 1 and a.deadline is not None
    make_due(a)
    assert services.expire(a.pk)

    a, b = seat_of(match, alice), seat_of(match, bob)
    assert a.state == Seat.State.DROPPED and a.has_left
    assert (a.progress, a.strikes, a.total_strikes, a.deadline) == (2, 2, 2, None)
    moves = list(Move.objects.filter(match=match).values_list("seat__player", "text"))
    assert moves[3] == (alice.pk, "leave")  # after both tiles of round 1 and hers of round 2
    assert any("were dropped" in t for t in said(player=alice))
    assert services.expire(a.pk) is False
    # Bob is the only one left: the match is over, he won, nobody owes anything.
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.finished is not None
    assert (a.rank, b.rank) == (2, 1)
    assert b.deadline is None and b.turn is None
    assert sweep.due_seats(timezone.now() + timedelta(days=30)) == []
    assert your_move(match, bob) == 0
    assert any("you finished #1" in t for t in said(player=bob))
    assert any("you finished #2" in t for t in said(player=alice))
    with pytest.raises(MoveRefused):
        services.play(match.pk, bob, "place 0@0,0r0", ply_of(match, bob))


def test_a_second_strike_on_the_last_tile_does_not_break_the_match(alice, bob):
    """The fallback tile placed for the last round completes the display: nothing to drop."""
    match = make_match(alice, bob, pace="free", removed=4)
    for _ in range(14):
        play(match, alice)
    a = seat_of(match, alice)
    for round in (15, 16):
        make_due(a)
        assert services.expire(a.pk) is True
        a.refresh_from_db()
        assert a.progress == round
    assert (a.strikes, a.total_strikes, a.deadline) == (2, 2, None)
    assert a.state == Seat.State.PLAYING
    assert sum("score stands" in t for t in said(player=alice)) == 1
    assert Move.objects.filter(seat=a).count() == 16
    game = game_of(match)
    assert game.finished(a.index) and not game.is_over()

    play_to_end(match, [bob])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    a, b = seat_of(match, alice), seat_of(match, bob)
    outcome = game_of(match).outcome()
    assert (a.rank, b.rank) == outcome.ranks
    assert (a.score, b.score) == outcome.scores


def test_a_second_strike_that_ends_the_match_finishes_it(alice, bob):
    match = make_match(alice, bob, pace="rounds", removed=4)
    for _ in range(14):
        play(match, alice)
        play(match, bob)
    a = seat_of(match, alice)
    make_due(a)
    assert services.expire(a.pk)
    play(match, bob)
    play(match, bob)  # bob's last tile: only alice's is missing
    a.refresh_from_db()
    assert a.strikes == 1 and a.progress == 15
    make_due(a)
    assert services.expire(a.pk) is True
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    a, b = seat_of(match, alice), seat_of(match, bob)
    assert (a.progress, b.progress) == (16, 16)
    assert {a.rank, b.rank} <= {1, 2} and a.rank is not None and b.rank is not None


def test_a_move_of_ones_own_clears_the_strikes(alice, bob):
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)
    make_due(a)
    assert services.expire(a.pk)
    a.refresh_from_db()
    assert a.strikes == 1
    play(match, alice)
    a.refresh_from_db()
    assert a.strikes == 0 and a.total_strikes == 1
    make_due(a)
    assert services.expire(a.pk)
    a.refresh_from_db()
    assert a.state == Seat.State.PLAYING
    assert (a.strikes, a.total_strikes, a.progress) == (1, 2, 3)
    assert a.deadline is not None


# ------------------------------------------------------------------ resigning


def test_a_resigned_player_is_ranked_last_and_the_others_play_on(alice, bob, carol):
    match = make_match(alice, bob, carol, pace="rounds", removed=4)
    play(match, alice)
    play(match, bob)
    services.resign(match.pk, carol)  # the round was waiting only for carol

    c = seat_of(match, carol)
    assert c.state == Seat.State.RESIGNED and c.deadline is None
    texts = list(Move.objects.filter(match=match).values_list("seat__player", "text"))
    assert texts[2] == (carol.pk, "leave")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert seat_of(match, alice).deadline is not None and seat_of(match, bob).deadline is not None
    assert game_of(match).completed_rounds() == 1
    for user in (alice, bob):
        assert "carol resigned." in said(player=user)
    with pytest.raises(MoveRefused, match="only resign from a match you are playing"):
        services.resign(match.pk, carol)
    with pytest.raises(MoveRefused, match="left this match"):
        services.play(match.pk, carol, "place 0@0,0r0", ply_of(match, carol))

    play_to_end(match, [alice, bob])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    a, b, c = (seat_of(match, u) for u in (alice, bob, carol))
    assert c.rank == 3
    assert sorted([a.rank, b.rank]) in ([1, 2], [1, 1])
    assert (a.progress, b.progress, c.progress) == (16, 16, 0)


def test_a_resignation_ends_a_match_of_two_and_rates_it(
    alice, bob, eager_tasks, django_capture_on_commit_callbacks
):
    match = make_match(alice, bob, pace="rounds", removed=4)
    play(match, alice)
    with django_capture_on_commit_callbacks(execute=True):
        services.resign(match.pk, bob)
    match.refresh_from_db()
    a, b = seat_of(match, alice), seat_of(match, bob)
    assert match.status == Match.Status.FINISHED and match.finished is not None
    assert (a.rank, b.rank) == (1, 2)
    assert b.state == Seat.State.RESIGNED and a.state == Seat.State.PLAYING
    assert a.deadline is None and a.turn is None
    assert (a.progress, b.progress) == (1, 0)
    assert your_move(match, alice) == 0
    assert not services.your_moves(alice).exists()
    assert any("bob resigned" in t for t in said(player=alice))
    assert any("you finished #1" in t for t in said(player=alice))
    assert any("you finished #2" in t for t in said(player=bob))
    assert match.rated_at is not None
    assert Rating.objects.get(player=alice).value > 1500.0 > Rating.objects.get(player=bob).value
    with pytest.raises(MoveRefused):
        services.play(match.pk, alice, "place 0@0,0r0", ply_of(match, alice))


def test_three_players_go_on_after_one_resigns_and_end_when_two_left(alice, bob, dave):
    match = make_match(alice, bob, dave, pace="rounds", removed=4)
    services.resign(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE  # alice and dave play on
    a, d = seat_of(match, alice), seat_of(match, dave)
    assert a.deadline is not None and d.deadline is not None
    play(match, alice)
    play(match, dave)
    assert seat_of(match, alice).progress == 1

    services.resign(match.pk, dave)
    match.refresh_from_db()
    a, b, d = seat_of(match, alice), seat_of(match, bob), seat_of(match, dave)
    assert match.status == Match.Status.FINISHED
    assert (a.rank, b.rank, d.rank) == (1, 2, 2)
    assert a.deadline is None
    assert any("you finished #1" in t for t in said(player=alice))
    assert any("you finished #2" in t for t in said(player=bob))


def test_a_challenge_goes_on_for_the_player_left(alice, bob):
    """A puzzle challenge is not ended by a resignation: ending it would show the puzzle's
    order to the one still playing it."""
    match = challenge(alice, bob)
    services.join(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    services.resign(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert seat_of(match, alice).deadline is not None


def test_resigning_after_the_last_tile_is_refused(client, alice, bob):
    match = make_match(alice, bob, pace="free", removed=4)
    for _ in range(16):
        play(match, alice)
    with pytest.raises(MoveRefused, match="made all your moves"):
        services.resign(match.pk, alice)
    client.force_login(alice)
    assert "Resign the match" not in client.get(match.get_absolute_url()).text
    refused = client.post(reverse("resign", args=[match.pk]))
    assert refused.status_code == 400 and "your score stands" in refused.text
    a = seat_of(match, alice)
    assert a.state == Seat.State.PLAYING
    assert not Move.objects.filter(match=match, text="leave").exists()
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


# ------------------------------------------------------------------ extensions


def test_extend_adds_a_day_twice_per_match(alice, bob):
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)
    deadline = a.deadline
    Seat.objects.filter(pk=a.pk).update(reminded=True)
    assert services.extend(match.pk, alice) == deadline + timedelta(days=1)
    a.refresh_from_db()
    assert (a.deadline, a.extensions_left, a.reminded) == (deadline + timedelta(days=1), 1, False)
    play(match, alice)  # the allowance is per match, not per move
    deadline = seat_of(match, alice).deadline
    assert services.extend(match.pk, alice) == deadline + timedelta(days=1)
    with pytest.raises(MoveRefused, match="used all your extensions"):
        services.extend(match.pk, alice)
    a.refresh_from_db()
    assert (a.deadline, a.extensions_left) == (deadline + timedelta(days=1), 0)
    assert seat_of(match, bob).extensions_left == 2


def test_extend_needs_a_running_deadline(alice, bob, carol):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    with pytest.raises(MoveRefused, match="no running deadline"):
        services.extend(match.pk, alice)
    a = seat_of(match, alice)
    assert a.deadline is None and a.extensions_left == 2
    waiting = services.create_match(
        alice, players=2, options={"pace": "free"}, time_control="1h", rated=False, invite=["carol"]
    )
    with pytest.raises(MoveRefused, match="no running deadline"):
        services.extend(waiting.pk, alice)


# ------------------------------------------------------------------ ratings


def finished_match(*users, ranks, rated=True, kind=Match.Kind.MATCH) -> Match:
    """A finished match stored directly: ``users`` on the given ranks."""
    match = Match.objects.create(
        kind=kind,
        status=Match.Status.FINISHED,
        seed=1,
        players=len(users),
        rated=rated,
        time_per_move=HOUR,
        created_by=users[0],
        started=timezone.now(),
        finished=timezone.now(),
    )
    for index, (user, rank) in enumerate(zip(users, ranks, strict=True)):
        Seat.objects.create(match=match, player=user, index=index, rank=rank, progress=20)
    return match


def test_finishing_a_rated_match_rates_it(
    alice, bob, eager_tasks, django_capture_on_commit_callbacks
):
    Rating.objects.create(player=bob, value=1600.0)
    match = make_match(alice, bob, pace="free", removed=4)
    for _ in range(16):
        play(match, alice)
    for _ in range(15):
        play(match, bob)
    assert not RatingChange.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        play(match, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.rated_at is not None
    a, b = seat_of(match, alice), seat_of(match, bob)
    expected = ratings.new_ratings([1500.0, 1600.0], [a.rank, b.rank], [40, 40])
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    assert set(changes) == {alice.pk, bob.pk}
    assert (changes[alice.pk].before, changes[bob.pk].before) == (1500.0, 1600.0)
    assert changes[alice.pk].after == pytest.approx(expected[0]) != 1500.0
    assert changes[bob.pk].after == pytest.approx(expected[1]) != 1600.0
    assert Rating.objects.get(player=alice).value == pytest.approx(expected[0])
    assert Rating.objects.get(player=bob).games == 1


def test_an_unrated_match_is_not_rated(alice, bob, eager_tasks, django_capture_on_commit_callbacks):
    match = make_match(alice, bob, pace="rounds", removed=4, rated=False)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(match, [alice, bob])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.rated_at is None
    assert services.rate_match(match.pk) is False
    assert not RatingChange.objects.exists() and not Rating.objects.exists()


def test_rate_match_applies_elo_once(alice, bob):
    match = finished_match(alice, bob, ranks=[1, 2])
    assert services.rate_match(match.pk) is True
    match.refresh_from_db()
    assert match.rated_at is not None
    expected = ratings.new_ratings([1500.0, 1500.0], [1, 2], [40, 40])
    assert expected == [1520.0, 1480.0]  # K=40 for new players: 40 * (1 - 0.5)
    a, b = (Rating.objects.get(player=u, pool=Rating.Pool.MATCH) for u in (alice, bob))
    assert (a.value, a.games, a.wins) == (pytest.approx(1520.0), 1, 1)
    assert (b.value, b.games, b.wins) == (pytest.approx(1480.0), 1, 0)
    changes = list(RatingChange.objects.filter(match=match).order_by("player_id"))
    assert [(c.player_id, c.pool, c.before) for c in changes] == [
        (alice.pk, "match", 1500.0),
        (bob.pk, "match", 1500.0),
    ]
    assert [c.after for c in changes] == pytest.approx(expected)

    assert services.rate_match(match.pk) is False
    assert RatingChange.objects.count() == 2
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.value, a.games, b.value, b.games) == (
        pytest.approx(1520.0),
        1,
        pytest.approx(1480.0),
        1,
    )


def test_rate_match_uses_each_players_rating_and_k(alice, bob, carol):
    Rating.objects.create(player=bob, value=1650.0, games=25, wins=10)
    Rating.objects.create(player=carol, value=1420.0, games=19)
    match = finished_match(alice, bob, carol, ranks=[2, 1, 3])
    assert services.rate_match(match.pk)
    expected = ratings.new_ratings([1500.0, 1650.0, 1420.0], [2, 1, 3], [40, 20, 40])
    after = [Rating.objects.get(player=u).value for u in (alice, bob, carol)]
    assert after == pytest.approx(expected)
    assert [Rating.objects.get(player=u).games for u in (alice, bob, carol)] == [1, 26, 20]
    assert Rating.objects.get(player=bob).wins == 11
    assert RatingChange.objects.get(player=bob).before == 1650.0


def test_a_challenge_is_rated_in_the_puzzle_pool(alice, bob):
    match = finished_match(alice, bob, ranks=[2, 1], kind=Match.Kind.CHALLENGE)
    assert services.rate_match(match.pk)
    assert set(Rating.objects.values_list("pool", flat=True)) == {Rating.Pool.PUZZLE}
    assert set(RatingChange.objects.values_list("pool", flat=True)) == {Rating.Pool.PUZZLE}


def test_a_challenge_against_a_bot_is_rated_in_the_bots_pool(alice, bob):
    """Bots never move players' other ratings, puzzle challenges' included."""
    match = finished_match(alice, bob, ranks=[1, 2], kind=Match.Kind.CHALLENGE)
    Seat.objects.filter(match=match, player=bob).update(bot="easy")
    assert services.rate_match(match.pk)
    assert set(Rating.objects.values_list("pool", flat=True)) == {Rating.Pool.BOTS}
    assert set(RatingChange.objects.values_list("pool", flat=True)) == {Rating.Pool.BOTS}


def test_resigned_and_dropped_players_rank_below_the_others(alice, bob, carol):
    match = make_match(alice, bob, carol, pace="rounds", removed=4)
    c = seat_of(match, carol)
    make_due(c)
    services.expire(c.pk)
    play(match, alice)
    play(match, bob)
    make_due(c)
    services.expire(c.pk)  # dropped in round 2
    services.resign(match.pk, bob)
    assert seat_of(match, carol).state == Seat.State.DROPPED
    play_to_end(match, [alice])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    ranks = [seat_of(match, u).rank for u in (alice, bob, carol)]
    assert ranks == [1, 2, 2]  # those who left share the last place

    assert services.rate_match(match.pk)
    expected = ratings.new_ratings([1500.0] * 3, ranks, [40] * 3)
    after = [Rating.objects.get(player=u).value for u in (alice, bob, carol)]
    assert after == pytest.approx(expected)
    assert after[0] > 1500.0 > after[1] == pytest.approx(after[2])


# ------------------------------------------------------------------ reminders


def test_remind_claims_once_per_deadline_after_80_percent(alice, bob):
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)
    deadline = a.deadline
    assert services.remind(a.pk, now=deadline - timedelta(minutes=30)) is False
    assert services.remind(a.pk, now=deadline - timedelta(minutes=13)) is False
    assert Seat.objects.get(pk=a.pk).reminded is False
    assert services.remind(a.pk, now=deadline - timedelta(minutes=11)) is True
    assert Seat.objects.get(pk=a.pk).reminded is True
    assert services.remind(a.pk, now=deadline - timedelta(minutes=5)) is False
    assert services.remind(a.pk, now=deadline + timedelta(minutes=1)) is False

    play(match, alice)  # a new deadline: a new reminder
    a.refresh_from_db()
    assert a.reminded is False and a.deadline > deadline
    assert services.remind(a.pk, now=a.deadline - timedelta(minutes=11)) is True
    assert services.remind(a.pk, now=a.deadline - timedelta(minutes=11)) is False
    services.extend(match.pk, alice)
    a.refresh_from_db()
    assert a.reminded is False
    assert services.remind(a.pk, now=a.deadline - timedelta(minutes=11)) is True


def test_remind_does_nothing_without_a_deadline(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    a = seat_of(match, alice)
    assert a.deadline is None
    assert services.remind(a.pk, now=timezone.now() + timedelta(minutes=55)) is False
    assert services.remind(10**9) is False
    assert Seat.objects.get(pk=a.pk).reminded is False


# ------------------------------------------------------------------ notifications


def unread_your_move(match, user) -> int:
    return Notification.objects.filter(
        player=user, match=match, kind=Notification.Kind.MOVE, read=False
    ).count()


def test_your_move_is_one_notification_per_match_kept_up_to_date(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    assert your_move(match, alice) == your_move(match, bob) == 1
    first = Notification.objects.get(player=bob, match=match, kind="move")

    play(match, bob)  # bob's move is made: his notification goes
    assert your_move(match, bob) == 0 and your_move(match, alice) == 1
    a = seat_of(match, alice)
    make_due(a)
    services.expire(a.pk)  # alice's round 1 by fallback: round 2 starts, for both
    assert your_move(match, bob) == 1 and unread_your_move(match, bob) == 1
    assert Notification.objects.get(player=bob, match=match, kind="move").created > first.created
    assert your_move(match, alice) == 1 and unread_your_move(match, alice) == 1

    services.seen(match, seat_of(match, bob))  # bob opens the match: read, and kept
    assert unread_your_move(match, bob) == 0 and your_move(match, bob) == 1
    play(match, bob)
    play(match, alice)  # round 3 for both: bob's is back, unread; alice has just moved
    assert unread_your_move(match, bob) == 1 and your_move(match, bob) == 1
    assert your_move(match, alice) == 0


def move_notifications(match) -> dict[str, int]:
    """How many "your move" notifications each player has in ``match``, read or not."""
    found = Notification.objects.filter(match=match, kind=Notification.Kind.MOVE)
    return dict(Counter(found.values_list("player__username", flat=True)))


def test_a_long_match_leaves_at_most_one_move_notification_per_player(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    for _ in range(12):  # each player opens the match and makes their move, round after round
        for user in (alice, bob):
            services.seen(match, seat_of(match, user))
            play(match, user)
            assert all(count == 1 for count in move_notifications(match).values())
    assert move_notifications(match) == {"alice": 1}  # bob moved last: round 13 is alice's
    assert unread_your_move(match, alice) == 1 and unread_your_move(match, bob) == 0
    play_to_end(match, [alice, bob])
    assert move_notifications(match) == {}  # the match is over: no move is owed


def test_a_move_made_takes_its_notification_away(alice, bob, carol):
    match = make_match(alice, bob, carol, pace="free")
    assert move_notifications(match) == {"alice": 1, "bob": 1, "carol": 1}
    play(match, alice)
    assert move_notifications(match) == {"bob": 1, "carol": 1}
    assert unread_your_move(match, bob) == unread_your_move(match, carol) == 1
    services.resign(match.pk, carol)  # a player who leaves owes nothing more
    assert move_notifications(match) == {"bob": 1}


def test_the_notification_of_a_player_whose_time_ran_out_comes_up_to_date(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    services.seen(match, seat_of(match, alice))
    play(match, bob)
    a = seat_of(match, alice)
    make_due(a)
    services.expire(a.pk)  # round 2: alice did not move, and the move is hers again
    assert move_notifications(match) == {"alice": 1, "bob": 1}
    assert unread_your_move(match, alice) == 1


def test_opening_the_match_page_reads_the_notification_and_cancels_the_email(client, alice, bob):
    match = make_match(alice, bob, pace="free")
    assert seat_of(match, alice).mail_at is not None
    client.force_login(alice)
    assert client.get(match.get_absolute_url()).status_code == 200
    assert unread_your_move(match, alice) == 0 and unread_your_move(match, bob) == 1
    assert seat_of(match, alice).mail_at is None and seat_of(match, bob).mail_at is not None


def mails_for(match) -> list[str]:
    """Settle every e-mail due in ``match`` now; the addresses written to."""
    mail.outbox.clear()
    for seat in match.seats.all():
        notifications.send_due(seat.pk)
    return sorted(m.to[0] for m in mail.outbox)


def test_move_emails_go_to_players_away_who_want_them_once_a_day(alice, bob, carol, dave, settings):
    settings.SITE_URL = "https://nmbr9.example.org"
    Profile.objects.create(player=alice, email_on_move=True)
    Profile.objects.create(player=carol, email_on_move=False)
    dave.email = ""
    dave.save()
    match = make_match(alice, bob, carol, dave, pace="rounds")
    assert mails_for(match) == ["alice@example.com", "bob@example.com"]
    assert all(m.subject == f"Your move in {match}" for m in mail.outbox)
    assert all(
        f"https://nmbr9.example.org{match.get_absolute_url()}" in m.body for m in mail.outbox
    )
    assert Seat.objects.filter(match=match, mail_at__isnull=False).count() == 0
    for user in (alice, bob, carol, dave):
        assert your_move(match, user) == 1  # the notification is for everybody
    for user in (alice, bob, carol, dave):
        play(match, user)  # round 2: their move again, but they had an e-mail today
    assert mails_for(match) == []
    Seat.objects.filter(match=match).update(mailed_at=timezone.now() - timedelta(days=1, minutes=1))
    for user in (alice, bob, carol, dave):
        play(match, user)
    assert mails_for(match) == ["alice@example.com", "bob@example.com"]


def test_a_player_on_the_site_gets_the_email_only_after_being_away(alice, bob):
    match = make_match(alice, bob, pace="free")
    seen = timezone.now() - timedelta(minutes=10)
    services.touch(alice, now=seen)
    assert mails_for(match) == ["bob@example.com"]
    a = seat_of(match, alice)
    assert a.mail_at == seen + notifications.AWAY
    mail.outbox.clear()
    assert notifications.send_due(a.pk, now=seen + timedelta(minutes=29)) is False
    assert notifications.send_due(a.pk, now=seen + timedelta(minutes=31)) is True
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    assert seat_of(match, alice).mail_at is None


class Down(locmem.EmailBackend):
    """A mail server that cannot be reached."""

    def send_messages(self, messages):
        raise OSError("the mail server is down")


def test_an_email_that_fails_is_sent_again_after_its_claim_runs_out(alice, bob, settings):
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)

    mailers = settings.MAILERS
    settings.MAILERS = {"default": {"BACKEND": f"{__name__}.Down"}}
    with pytest.raises(OSError):
        notifications.send_due(a.pk)
    assert notifications.send_due(a.pk) is False  # claimed: nobody sends it twice at once
    settings.MAILERS = mailers
    later = timezone.now() + notifications.LEASE + timedelta(seconds=1)
    assert notifications.send_due(a.pk, now=later) is True
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]


class SlowToSayGoodbye(locmem.EmailBackend):
    """Takes every e-mail, then outlasts the task's time limit while closing."""

    def close(self):
        raise SoftTimeLimitExceeded()


def test_an_email_the_server_took_is_not_sent_again_whatever_happens_after(alice, bob, settings):
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)
    settings.MAILERS = {"default": {"BACKEND": f"{__name__}.SlowToSayGoodbye"}}
    with pytest.raises(SoftTimeLimitExceeded):
        notifications.send_due(a.pk)
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    later = timezone.now() + notifications.LEASE + timedelta(seconds=1)
    assert Seat.objects.get(pk=a.pk).mailed_at is not None
    assert notifications.send_due(a.pk, now=later) is False
    assert len(mail.outbox) == 1


def test_a_batch_of_due_emails_is_settled_with_a_fixed_number_of_queries(
    alice, bob, django_assert_num_queries
):
    """The sweep hands out due e-mails a hundred at a time: the seats that need none yet
    (player on the site, mailed today, no e-mails wanted) are read and written together."""
    Profile.objects.create(player=bob, email_on_move=False)
    seen = timezone.now() - timedelta(minutes=5)

    def due_seats(matches: int) -> list[int]:
        made = [make_match(alice, bob, pace="free") for _ in range(matches)]
        services.touch(alice, now=seen)  # alice is on the site, bob wants no e-mails
        # bob's reminders are due too: settled without an e-mail, the flag goes with them
        Seat.objects.filter(match__in=made, player=bob).update(mail_reminder=True)
        return [seat.pk for match in made for seat in match.seats.all()]

    few, many = due_seats(1), due_seats(5)
    # the seats, their players' profiles, and one statement for all the writes
    with django_assert_num_queries(3):
        assert notifications.send_many(few) == 0
    with django_assert_num_queries(3):
        assert notifications.send_many(many) == 0
    for seat in Seat.objects.filter(pk__in=few + many).select_related("player"):
        if seat.player == alice:
            assert seat.mail_at == seen + notifications.AWAY
        else:
            assert seat.mail_at is None and seat.mail_reminder is False
    assert mail.outbox == []


def test_a_batch_sends_the_emails_that_are_due_and_settles_the_rest(alice, bob, carol):
    Profile.objects.create(player=carol, email_on_move=False)
    match = make_match(alice, bob, carol, pace="free")
    services.touch(bob)  # on the site: asked again when away
    seats = {seat.player: seat for seat in match.seats.all()}
    assert notifications.send_many([seat.pk for seat in seats.values()]) == 1
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    a, b, c = (seat_of(match, user) for user in (alice, bob, carol))
    assert a.mail_at is None and a.mailed_at is not None
    assert b.mail_at is not None and b.mail_at > timezone.now() + timedelta(minutes=29)
    assert c.mail_at is None and c.mailed_at is None
    assert notifications.send_many([a.pk, b.pk, c.pk]) == 0  # nothing more is due now


def test_an_email_settled_in_a_batch_keeps_a_change_made_meanwhile(alice, bob, monkeypatch):
    """A reminder (or a move) that comes in between the batch's read and its write wins."""
    Profile.objects.create(player=alice, email_on_move=False)
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)
    reminded = timezone.now()
    decide = notifications._mail_for

    def meanwhile(seat, profile, now):
        Seat.objects.filter(pk=seat.pk).update(mail_at=reminded, mail_reminder=True)
        return decide(seat, profile, now)

    monkeypatch.setattr(notifications, "_mail_for", meanwhile)
    notifications.send_many([a.pk])
    a.refresh_from_db()
    assert a.mail_at == reminded and a.mail_reminder is True


def test_two_batches_that_read_the_same_due_email_send_it_once(alice, bob, monkeypatch):
    """Two workers with the same seat in their batches: the one that claims it first sends
    it; the other finds its claim taken."""
    Profile.objects.create(player=bob, email_on_move=False)
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)
    decide = notifications._mail_for
    other_worker = []

    def meanwhile(seat, profile, now):
        if not other_worker:  # the other batch runs between this one's read and its claim
            other_worker.append(None)
            other_worker[0] = notifications.send_many([seat.pk])
        return decide(seat, profile, now)

    monkeypatch.setattr(notifications, "_mail_for", meanwhile)
    assert notifications.send_many([a.pk]) == 0
    assert other_worker == [1]
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    assert seat_of(match, alice).mail_at is None


def test_the_reminder_notifies_once_and_mails_players_who_want_it(alice, bob):
    Profile.objects.create(player=bob, email_on_move=False)
    match = make_match(alice, bob, pace="free")
    mails_for(match)  # the "your move" e-mails of the start
    now = timezone.now()
    # 81% of the hour used: move the deadlines, not the clock
    Seat.objects.filter(match=match).update(
        deadline=now + timedelta(minutes=11), remind_at=now - timedelta(minutes=1)
    )
    for seat in match.seats.all():
        assert services.remind(seat.pk) is True
        assert services.remind(seat.pk) is False
    assert mails_for(match) == ["alice@example.com"]
    assert "Time is running out" in mail.outbox[0].subject
    for user in (alice, bob):
        assert sum(t.startswith("Time is running out") for t in said(player=user)) == 1


# ------------------------------------------------------------------ what players see


def placements_of(seat) -> list[Placement]:
    return [
        Placement.parse(text.split()[1])
        for text in Move.objects.filter(seat=seat).order_by("ply").values_list("text", flat=True)
    ]


def seen_by(match, user, player: int) -> tuple[Placement, ...]:
    """The placements of ``player``'s display that ``user`` is shown, through the services."""
    view = services.view_match(match.pk, user).view
    return tuple(p for p, _ in view.displays[player].tiles)


def test_rounds_pace_hides_the_current_round_of_the_others(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    a, b = seat_of(match, alice), seat_of(match, bob)
    (alice_tile,) = placements_of(a)

    view = services.view_match(match.pk, bob).view
    assert view.displays[a.index].tiles == () and view.displays[a.index].score == 0
    assert str(alice_tile) not in json.dumps(view.to_dict())
    assert seen_by(match, alice, a.index) == (alice_tile,)
    assert seen_by(match, alice, b.index) == ()

    play(match, bob)
    (bob_tile,) = placements_of(b)
    assert seen_by(match, bob, a.index) == (alice_tile,)
    assert seen_by(match, alice, b.index) == (bob_tile,)


def test_free_pace_shows_an_opponent_ahead_only_up_to_ones_own_round(alice, bob):
    match = make_match(alice, bob, pace="free")
    for _ in range(3):
        play(match, alice)
    a, b = seat_of(match, alice), seat_of(match, bob)
    alice_tiles = placements_of(a)

    view = services.view_match(match.pk, bob).view
    assert view.round == 1 and view.displays[a.index].tiles == ()
    assert view.displays[a.index].progress == 0  # nor how far she has got
    play(match, bob)
    assert services.view_match(match.pk, bob).view.round == 2
    assert seen_by(match, bob, a.index) == tuple(alice_tiles[:1])
    play(match, bob)
    assert seen_by(match, bob, a.index) == tuple(alice_tiles[:2])

    bob_tiles = placements_of(b)
    assert seen_by(match, alice, b.index) == tuple(bob_tiles)  # all of bob's, who is behind


def test_expiring_many_seats_at_once_is_the_same_as_one_by_one(alice, bob, carol):
    """A batch (as the sweep sends): several matches, two due seats in one round, one
    seat not due, one unknown id; then the batch again changes nothing."""
    rounds = make_match(alice, bob, pace="rounds", seed=3)
    free = make_match(carol, alice, pace="free", seed=4)
    ending = make_match(bob, carol, pace="free", removed=4, seed=5)
    for _ in range(15):
        play(ending, bob)
    play(ending, carol)
    due = [seat_of(rounds, alice), seat_of(rounds, bob), seat_of(free, carol)]
    due.append(seat_of(ending, bob))  # his last tile: the match ends when carol is done
    for seat in due:
        make_due(seat)
    not_due = seat_of(free, alice)

    expired = services.expire_many([s.pk for s in due] + [not_due.pk, 999_999])
    assert expired == 4
    for seat in due:
        seat.refresh_from_db()
        assert (seat.strikes, seat.total_strikes) == (1, 1)
        assert Move.objects.filter(seat=seat).count() == seat.progress
    assert [seat_of(rounds, u).progress for u in (alice, bob)] == [1, 1]
    assert seat_of(rounds, alice).deadline > timezone.now()  # round 2 for both
    assert seat_of(rounds, bob).remind_at == seat_of(rounds, bob).deadline - timedelta(minutes=12)
    assert seat_of(free, alice).progress == 0 and seat_of(free, alice).strikes == 0
    assert seat_of(ending, bob).progress == 16 and seat_of(ending, bob).deadline is None
    assert sum("one strike" in t for t in said()) == 4
    for match in (rounds, free, ending):
        game = game_of(match)
        for seat in match.seats.all():
            assert game.board(seat.index).score() == seat.score

    assert services.expire_many([s.pk for s in due]) == 0
    assert Move.objects.count() == 2 + 1 + 16 + 1  # rounds, free, bob and carol in ending


def test_a_match_whose_expiry_fails_is_skipped_and_the_rest_of_the_batch_expires(
    alice, bob, carol, caplog
):
    broken = make_match(alice, bob, pace="free", seed=3)
    fine = [make_match(carol, alice, pace="free", seed=4), make_match(bob, carol, seed=5)]
    play(broken, alice)
    # A stored move the engine refuses to replay, and no state kept to read instead of
    # replaying: expiring this match raises.
    Move.objects.filter(match=broken).update(text="place 9@40,40r0")
    MatchState.objects.filter(match=broken).delete()
    due = [seat for match in (broken, *fine) for seat in match.seats.all()]
    for seat in due:
        make_due(seat)
    ids = sorted(s.pk for s in due)
    assert services.expire_many(ids) == 4
    assert f"expiry in match {broken.pk} failed" in caplog.text
    assert services.expire_many(ids) == 0  # sent again: the broken one still blocks nothing
    for match in fine:
        assert [s.strikes for s in match.seats.all()] == [1, 1]
    assert [s.strikes for s in broken.seats.all()] == [0, 0]
    assert Move.objects.filter(seat__match=broken).count() == 1
