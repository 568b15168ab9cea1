"""Many players joining Play now's pools at once, on PostgreSQL: nobody is in two new
matches, every match is full, and nobody's entry is lost."""

from collections import Counter

import pytest
from django.contrib.auth.models import User
from django.db import connection

from games.models import Match, PoolEntry, Seat
from games.services.features import pools
from tests.factories import together

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 50


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's row locks (SKIP LOCKED) between concurrent transactions")


def test_fifty_players_joining_at_once_are_each_in_one_match_or_waiting():
    players = [User.objects.create_user(f"p{n}") for n in range(THREADS)]

    def joining(player):
        def call():
            pools.join(player, "nmbr9", "30s", 2)
            pools.status(player)  # the waiting page's first poll pairs as well

        return call

    pairing = [pools.pair for _ in range(5)]  # the clock, looking meanwhile
    results = together(*[joining(p) for p in players], *pairing)
    assert not [r for r in results if isinstance(r, Exception)]
    pools.pair()  # whoever is left after the rush

    seats = Counter(Seat.objects.filter(player__in=players).values_list("player_id", flat=True))
    assert all(count == 1 for count in seats.values()), "somebody is in two new matches"
    for match in Match.objects.all():
        assert match.seats.count() == 2 and match.status == Match.Status.ACTIVE
        assert set(PoolEntry.objects.filter(match=match).values_list("player_id", flat=True)) == {
            s.player_id for s in match.seats.all()
        }
    waiting = set(PoolEntry.objects.filter(match=None).values_list("player_id", flat=True))
    assert not waiting & set(seats), "a paired player still waits"
    assert set(seats) | waiting == {p.pk for p in players}, "an entry was lost"
    assert len(waiting) <= 1  # all at 1500: everybody fits everybody
