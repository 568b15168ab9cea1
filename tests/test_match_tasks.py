"""Match tasks run by a real Celery worker consuming from the real Redis.

Time is moved in the database (a deadline set in the past), never by sleeping.
"""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from games import services
from games.infra import queue
from games.models import Match, Move, PlayerStats, Rating, RatingChange, Seat
from games.tasks import rate_match, refresh_player_stats, sweep
from tests.factories import (
    drain,
    lose_tasks,
    make_due,
    make_match,
    play,
    play_to_end,
    said,
    seat_of,
    wait_for,
)

pytestmark = pytest.mark.worker


def test_the_sweep_expires_a_due_seat_and_the_match_advances(celery_worker, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, bob)
    a = seat_of(match, alice)
    make_due(a)
    sweep.delay()

    a = wait_for(lambda: Seat.objects.filter(pk=a.pk, progress=1, strikes=1).first())
    move = Move.objects.get(seat=a)
    assert (move.ply, move.auto) == (1, True)
    b = seat_of(match, bob)
    assert a.deadline is not None and b.deadline is not None  # round 2 for both
    assert any("one strike" in t for t in said(player=alice))


def test_the_sweep_finds_every_due_deadline(celery_worker, alice, bob, carol):
    match = make_match(alice, bob, carol, pace="free")
    lost = [seat_of(match, alice), seat_of(match, carol)]
    for seat in lost:
        make_due(seat)
    sweep.delay()

    wait_for(lambda: Seat.objects.filter(pk__in=[s.pk for s in lost], strikes=1).count() == 2)
    b = seat_of(match, bob)
    assert (b.progress, b.strikes) == (0, 0)
    for seat in lost:
        seat.refresh_from_db()
        assert seat.progress == 1 and seat.deadline > timezone.now()
    sweep.delay()  # nothing is due any more: nothing changes
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
    Seat.objects.filter(match=match).update(mail_at=None)  # no "your move" e-mail here
    now = timezone.now()
    # 85% of the hour used: the reminder is due, the deadline is not.
    Seat.objects.filter(pk=a.pk).update(
        deadline=now + timedelta(minutes=9), remind_at=now - timedelta(minutes=3)
    )
    sweep.delay()
    sweep.delay()
    drain(bob)  # the sweeps have run
    drain(bob)  # and so have the reminder tasks they sent
    assert Seat.objects.get(pk=a.pk).reminded
    assert not Seat.objects.get(pk=seat_of(match, bob).pk).reminded
    assert sum(t.startswith("Time is running") for t in said(player=alice)) == 1
    sweep.delay()  # the reminder's e-mail is due now
    drain(bob)
    drain(bob)
    assert [m.to for m in mail.outbox] == [[alice.email]]
    assert "time" in mail.outbox[0].subject.lower()
    sweep.delay()
    drain(bob)
    drain(bob)
    assert len(mail.outbox) == 1


def test_a_rating_task_that_was_never_sent_is_applied_by_the_sweep_once(
    celery_worker, alice, bob, carol, monkeypatch
):
    match = make_match(alice, bob, pace="free", removed=4)
    lost = lose_tasks(monkeypatch)
    play_to_end(match, [alice, bob])
    monkeypatch.undo()
    assert "games.tasks.rate_match" in lost
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.rated_at is None
    sweep.delay()
    sweep.delay()
    wait_for(lambda: RatingChange.objects.filter(match=match).count() == 2)
    drain(carol)
    drain(carol)
    assert RatingChange.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]


def test_lost_stats_par_and_mail_tasks_are_done_by_the_sweep(
    celery_worker, alice, bob, carol, monkeypatch
):
    from games.models import Puzzle
    from games.services.features import puzzles

    lost = lose_tasks(monkeypatch)
    solo = services.start_solo(alice, seed=5)
    for _ in range(20):
        play(solo, alice)
    (puzzle,) = puzzles.create_puzzles(1)
    match = make_match(bob, carol, pace="free")  # "your move" e-mails due for both
    monkeypatch.undo()
    assert {"games.tasks.refresh_player_stats", "games.tasks.compute_par"} <= set(lost)
    assert not PlayerStats.objects.filter(player=alice).exists()
    assert Puzzle.objects.get(pk=puzzle.pk).par is None
    mail.outbox.clear()
    # The par request is old enough to be asked for again.
    Puzzle.objects.filter(pk=puzzle.pk).update(par_queued=timezone.now() - timedelta(hours=1))
    sweep.delay()
    stats = wait_for(lambda: PlayerStats.objects.filter(player=alice, solo_games=1).first())
    assert stats.solo_best == solo.seats.get().score
    wait_for(lambda: Puzzle.objects.filter(pk=puzzle.pk, par__isnull=False).exists())
    wait_for(lambda: len(mail.outbox) == 2)
    assert sorted(m.to[0] for m in mail.outbox) == [bob.email, carol.email]
    assert all(match.get_absolute_url() in m.body for m in mail.outbox)
    sweep.delay()
    drain(carol)
    drain(carol)
    assert len(mail.outbox) == 2


def refuse_sends(monkeypatch, task) -> list:
    """The broker refuses ``task`` (as when it cannot be reached); the arguments tried."""
    tried = []

    def refuse(args, *more, **options):
        tried.append(tuple(args))
        raise OSError("the broker is away")

    monkeypatch.setattr(task, "apply_async", refuse)
    return tried


@pytest.mark.django_db
def test_after_the_broker_failed_nothing_is_tried_for_a_while(monkeypatch):
    """One request may send several tasks, each of which could wait out the broker's
    timeouts: after a failure the process leaves the work to the sweep for a while."""
    tried = refuse_sends(monkeypatch, refresh_player_stats)
    assert queue.send_now(refresh_player_stats.name, 1) is False
    assert queue.send_now(refresh_player_stats.name, 2) is False
    assert tried == [(1,)]
    monkeypatch.setattr(queue, "_away_until", 0.0)  # the while is over
    assert queue.send_now(refresh_player_stats.name, 3) is False
    assert tried == [(1,), (3,)]


@pytest.mark.django_db
def test_a_par_the_broker_did_not_take_is_asked_for_by_the_next_sweep(
    monkeypatch, django_capture_on_commit_callbacks
):
    from games.infra.sweep import claim_par
    from games.models import Puzzle
    from games.services.features import puzzles
    from games.tasks import compute_par

    tried = refuse_sends(monkeypatch, compute_par)
    with django_capture_on_commit_callbacks(execute=True):
        (puzzle,) = puzzles.create_puzzles(1)
    assert [args[0] for args in tried] == [puzzle.pk]
    assert Puzzle.objects.get(pk=puzzle.pk).par_queued is None
    queue.broker_back()
    sweep()  # its request is refused too: released again
    assert len(tried) == 2 and Puzzle.objects.get(pk=puzzle.pk).par_queued is None
    assert [pk for pk, _ in claim_par()] == [puzzle.pk]
