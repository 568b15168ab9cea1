"""Simultaneous requests on PostgreSQL: each effect happens exactly once.

Threads start together at a barrier, each with its own database connection, and call the
same service functions the views and tasks call.
"""

from functools import partial

import pytest
from django.db import connection

from games import services
from games.models import Match, Move, RatingChange, Seat
from games.nmbr9.policy import fallback_placement
from games.services import MoveRefused
from tests.factories import choice, game_of, make_due, make_match, play_to_end, seat_of, together

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's row locks between concurrent transactions")


def placing(match, user):
    placement, ply = choice(match, user)
    return lambda: services.play(match.pk, user, f"place {placement}", ply)


def test_two_players_placing_in_the_same_round_both_land_once(alice, bob):
    match = make_match(alice, bob, pace="rounds")
    for _ in range(3):
        results = together(placing(match, alice), placing(match, bob))
        assert not any(isinstance(r, Exception) for r in results), results
    a, b = seat_of(match, alice), seat_of(match, bob)
    assert (a.progress, b.progress) == (3, 3)
    assert sorted(Move.objects.filter(match=match).values_list("ply", flat=True)) == [
        0,
        1,
        2,
        3,
        4,
        5,
    ]
    assert a.deadline is not None and b.deadline is not None  # round 4 for both


def test_the_same_placement_twice_at_once_places_once(alice, bob):
    match = make_match(alice, bob, pace="free")
    same = placing(match, alice)
    results = together(same, same, same)
    assert not any(isinstance(r, Exception) for r in results), results  # a double submit
    assert Move.objects.filter(seat__player=alice).count() == 1
    assert seat_of(match, alice).progress == 1


def own_placement(match, user):
    """A legal placement of the user's tile that is not the one the fallback would choose."""
    seat = seat_of(match, user)
    game = game_of(match)
    fallback = fallback_placement(game, seat.index)
    number = game.current_number(seat.index)
    placement = next(p for p in game.board(seat.index).legal_placements(number) if p != fallback)
    return lambda: services.play(match.pk, user, f"place {placement}", 0)


def test_two_different_placements_at_once_one_lands(alice, bob):
    match = make_match(alice, bob, pace="free")
    results = together(placing(match, alice), own_placement(match, alice))
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(refused) == 1 and isinstance(refused[0], MoveRefused), results
    assert "moved since this page was drawn" in str(refused[0])
    assert Move.objects.filter(seat__player=alice).count() == 1


def test_expiry_racing_the_players_own_move_has_one_effect(alice, bob):
    for _ in range(4):
        Match.objects.all().delete()
        match = make_match(alice, bob, pace="free")
        seat_id = seat_of(match, alice).pk
        own = own_placement(match, alice)
        make_due(seat_of(match, alice))
        results = together(own, partial(services.expire, seat_id))
        a = seat_of(match, alice)
        # The deadline has passed, so the tile is made for her once, whoever comes first,
        # and her own (too late) is refused.
        assert Move.objects.filter(seat=a).count() == a.progress == 1
        assert Move.objects.get(seat=a).auto and a.strikes == 1
        assert isinstance(results[0], MoveRefused)
        if results[1] is True:  # the sweep's expiry came first
            assert "moved since this page was drawn" in str(results[0])
        else:  # her move came first, found its deadline past and expired the seat itself
            assert "had run out" in str(results[0])


def test_two_expiries_at_once_strike_once(alice, bob):
    match = make_match(alice, bob, pace="free")
    a = seat_of(match, alice)
    make_due(a)
    results = together(*[lambda: services.expire(a.pk)] * 3)
    assert sorted(results) == [False, False, True]
    a.refresh_from_db()
    assert (a.progress, a.strikes) == (1, 1)


def test_two_rating_runs_at_once_apply_once(alice, bob):
    match = make_match(alice, bob, pace="free", removed=4)
    play_to_end(match, [alice, bob])
    assert not RatingChange.objects.exists()  # the task was queued, and no worker runs here
    results = together(*[lambda: services.rate_match(match.pk)] * 3)
    assert sorted(results) == [False, False, True]
    assert RatingChange.objects.filter(match=match).count() == 2
    assert {s.player_id for s in Seat.objects.filter(match=match)} == set(
        RatingChange.objects.values_list("player_id", flat=True)
    )


def test_overlapping_expiry_batches_do_not_deadlock_and_act_once(alice, bob, carol):
    matches = [make_match(alice, bob, pace="free", seed=s) for s in (1, 2)]
    matches.append(make_match(bob, carol, pace="free", seed=3))
    seats = [seat for match in matches for seat in match.seats.all()]
    for seat in seats:
        make_due(seat)
    ids = [seat.pk for seat in seats]
    results = together(
        partial(services.expire_many, ids),
        partial(services.expire_many, ids[::-1]),
        partial(services.expire_many, ids[2:]),
    )
    assert not any(isinstance(r, Exception) for r in results), results
    assert sum(results) == len(ids)
    assert Move.objects.count() == len(ids)
    assert set(Seat.objects.values_list("strikes", flat=True)) == {1}
