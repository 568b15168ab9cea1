"""Celery tasks run by a real worker that consumes from the real Redis."""

import time

import pytest
from django.urls import reverse

from games import services
from games.models import PlayerStats
from games.tasks import refresh_player_stats
from tests.factories import form_for, wait_for

pytestmark = pytest.mark.worker


def test_finishing_a_game_updates_stats_through_the_worker(celery_worker, client, alice):
    match = services.start_solo(alice, seed=11)
    client.force_login(alice)
    seat = match.seats.get()
    for _ in range(20):
        data = form_for(match, alice)
        assert client.post(reverse("play", args=[match.pk]), data).status_code == 302
    seat.refresh_from_db()
    stats = wait_for(lambda: PlayerStats.objects.filter(player=alice, solo_games=1).first())
    assert stats.solo_best == seat.score
    assert stats.solo_average == pytest.approx(seat.score)


def test_the_stats_task_is_safe_to_run_twice(celery_worker, alice):
    refresh_player_stats.delay(alice.pk)
    refresh_player_stats.delay(alice.pk)
    stats = wait_for(lambda: PlayerStats.objects.filter(player=alice).first())
    time.sleep(0.3)
    assert PlayerStats.objects.filter(player=alice).count() == 1
    assert stats.solo_games == 0 and stats.solo_best is None
