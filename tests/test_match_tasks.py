"""Match tasks run by a real Celery worker consuming from the real Redis.

Time is moved in the database (a deadline set in the past), never by sleeping.
"""

from datetime import timedelta

import pytest
from django.core import mail
from django.db import transaction
from django.utils import timezone

from games import services
from games.models import Match, Move, Notification, PlayerStats, Rating, RatingChange, Seat
from games.tasks import rate_match, refresh_player_stats, sweep_deadlines
from tests.test_match_services import make_due, make_match, play, play_to_end, seat_of
from tests.test_tasks import wait_for

pytestmark = pytest.mark.worker


def drain(marker_player) -> None:
    """Wait until the worker has run every task sent so far (it runs them in order).

    Tasks those tasks send are queued behind the marker: drain again to wait for them.
    """
    PlayerStats.objects.filter(player=marker_player).delete()
    refresh_player_stats.delay(marker_player.pk)
    wait_for(lambda: PlayerStats.objects.filter(player=marker_player).exists())


def test_a_scheduled_expiry_advances_the_match(celery_worker, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, bob)
    a = seat_of(match, alice)
    make_due(a)
    a.refresh_from_db()
    with transaction.atomic():
        services._schedule(match, a)  # what every new deadline does, now already due

    a = wait_for(lambda: Seat.objects.filter(pk=a.pk, placed=1, strikes=1).first())
    move = Move.objects.get(seat=a)
    assert move.round == 1
    b = seat_of(match, bob)
    assert a.deadline is not None and b.deadline is not None  # round 2 for both
    assert Notification.objects.filter(player=alice, text__contains="one strike").exists()


def test_the_sweep_finds_a_deadline_whose_task_was_lost(celery_worker, alice, bob, carol):
    match = make_match(alice, bob, carol, pace="free")
    lost = [seat_of(match, alice), seat_of(match, carol)]
    for seat in lost:
        make_due(seat)  # its scheduled task still waits for the old deadline
    sweep_deadlines.delay()

    wait_for(lambda: Seat.objects.filter(pk__in=[s.pk for s in lost], strikes=1).count() == 2)
    b = seat_of(match, bob)
    assert (b.placed, b.strikes) == (0, 0)
    for seat in lost:
        seat.refresh_from_db()
        assert seat.placed == 1 and seat.deadline > timezone.now()
    sweep_deadlines.delay()  # nothing is due any more: nothing changes
    drain(bob)  # the sweep has run
    drain(bob)  # and so has any expiry task it sent
    assert Move.objects.filter(seat__match=match).count() == 2


def test_a_rating_task_sent_again_applies_once(celery_worker, alice, bob, carol):
    match = make_match(alice, bob, pace="free", removed=4)
    play_to_end(match, [alice, bob])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    rate_match.delay(match.pk)
    rate_match.delay(match.pk)

    wait_for(lambda: RatingChange.objects.filter(match=match).count() == 2)
    wait_for(lambda: Match.objects.filter(pk=match.pk, rated_at__isnull=False).exists())
    rate_match.delay(match.pk)
    drain(carol)
    assert RatingChange.objects.filter(match=match).count() == 2
    ranks = dict(Seat.objects.filter(match=match).values_list("player_id", "rank"))
    for rating in Rating.objects.filter(pool=Rating.Pool.MATCH):
        assert rating.games == 1
        if ranks[alice.pk] == ranks[bob.pk]:
            assert rating.value == 1500
        else:
            assert rating.value == (1520 if ranks[rating.player_id] == 1 else 1480)


def test_the_sweep_sends_a_due_reminder_once(celery_worker, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    a = seat_of(match, alice)
    assert a.remind_at == a.deadline - timedelta(minutes=12)  # 80% of the hour
    drain(bob)  # the "your move" e-mails of the start
    mail.outbox.clear()
    now = timezone.now()
    # 85% of the hour used: the reminder is due, the deadline is not.
    Seat.objects.filter(pk=a.pk).update(
        deadline=now + timedelta(minutes=9), remind_at=now - timedelta(minutes=3)
    )
    sweep_deadlines.delay()
    sweep_deadlines.delay()
    drain(bob)  # the sweeps have run
    drain(bob)  # and so have the reminder tasks they sent
    assert Seat.objects.get(pk=a.pk).reminded
    assert not Seat.objects.get(pk=seat_of(match, bob).pk).reminded
    assert [m.to for m in mail.outbox] == [[alice.email]]
    assert "time" in mail.outbox[0].subject.lower()
    assert (
        Notification.objects.filter(player=alice, text__startswith="Time is running").count() == 1
    )
