"""Tournaments the staff set to repeat in the admin: the next one is created as one starts,
with the same settings, once however often the start is run."""

import re
import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from games.models import Entry, Tournament
from games.services.features import swiss_rounds, tournaments
from tests.factories import new_duplicate as new
from tests.factories import new_swiss

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def due(tournament) -> None:
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    tournament.refresh_from_db()


def test_a_repeating_tournament_creates_its_next_once_as_it_starts(alice, bob):
    tournament = new(alice, games=3, window="12h")
    Tournament.objects.filter(pk=tournament.pk).update(repeat=DAY, featured=True)
    tournaments.join(tournament.pk, bob)
    due(tournament)
    assert tournaments.start(tournament.pk)
    assert not tournaments.start(tournament.pk)
    assert tournaments.recur(tournament, timezone.now()) is None  # made already
    following = Tournament.objects.get(previous=tournament)
    assert following.status == Tournament.Status.UPCOMING
    assert following.starts == tournament.starts + DAY
    same = ("name", "game", "format", "mode", "options", "games", "window", "open")
    assert all(getattr(following, f) == getattr(tournament, f) for f in same)
    assert following.featured and following.repeat == DAY
    assert following.created_by == alice and following.token != tournament.token
    assert list(following.entries.values_list("player", flat=True)) == [alice.pk]
    # the next one repeats in its turn
    due(following)
    assert tournaments.start(following.pk)  # called off: alice alone
    assert Tournament.objects.filter(previous=following).count() == 1
    assert Tournament.objects.count() == 3


def test_a_tournament_that_does_not_repeat_creates_none(alice, bob):
    tournament = new(alice)
    tournaments.join(tournament.pk, bob)
    due(tournament)
    assert tournaments.start(tournament.pk)
    assert Tournament.objects.count() == 1


def test_a_next_start_long_past_moves_to_the_next_to_come(alice):
    tournament = new(alice)
    Tournament.objects.filter(pk=tournament.pk).update(
        repeat=DAY, starts=timezone.now() - timedelta(days=3, hours=1)
    )
    assert tournaments.start(tournament.pk)  # started late (the site was down)
    following = Tournament.objects.get(previous=tournament)
    assert timezone.now() < following.starts < timezone.now() + DAY


def test_a_repeating_swiss_keeps_its_rounds_left_to_the_start(alice, bob):
    tournament = new_swiss(alice, rounds=None, pace="30s")
    Tournament.objects.filter(pk=tournament.pk).update(repeat=timedelta(days=7))
    tournaments.join(tournament.pk, bob)
    due(tournament)
    assert swiss_rounds.start(tournament.pk)
    following = Tournament.objects.get(previous=tournament)
    assert following.format == Tournament.Format.SWISS and following.games == 0
    assert following.table_size == 2 and following.time_per_move == timedelta(seconds=30)
    assert following.starts == tournament.starts + timedelta(days=7)


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_starting_it_at_once_create_one_next():
    alice = User.objects.create_user("alice", "alice@example.com", "a-Long-pa55word")
    tournament = new(alice)
    Tournament.objects.filter(pk=tournament.pk).update(repeat=DAY)
    due(tournament)
    barrier = threading.Barrier(2)
    failures = []

    def recur():
        try:
            barrier.wait()
            tournaments.recur(tournament, timezone.now())
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=recur) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert Tournament.objects.filter(previous=tournament).count() == 1
    assert Entry.objects.filter(tournament__previous=tournament).count() == 1


def test_the_staff_set_a_tournament_to_repeat_in_the_admin(client, alice):
    staff = User.objects.create_superuser("boss", "boss@example.com", "a-Long-pa55word")
    tournament = new(alice)
    client.force_login(staff)
    url = reverse("admin:games_tournament_change", args=[tournament.pk])
    page = client.get(url).content.decode()
    assert "Every day" in page and "Every week" in page
    form = {
        "name": tournament.name,
        "repeat": "7 days, 0:00:00",
        "open": "on",
        "starts_0": (tournament.starts + DAY).strftime("%Y-%m-%d"),
        "starts_1": "12:00:00",
        "entries-TOTAL_FORMS": "0",
        "entries-INITIAL_FORMS": "0",
        "entries-MIN_NUM_FORMS": "0",
        "entries-MAX_NUM_FORMS": "1000",
    }
    response = client.post(url, form)
    errors = re.findall(r"errorlist[^>]*>(.*?)</ul>", response.content.decode(), re.S)
    assert response.status_code == 302, errors
    tournament.refresh_from_db()
    assert tournament.repeat == timedelta(days=7)
