"""Prepared reads: the queryset's instances, from SQL made once."""

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Match, Puzzle, Seat
from games.services.match import unit
from games.services.match.prepared import Prepared

from .test_match_services import make_match

FIELDS = [f.attname for f in Seat._meta.concrete_fields]
MATCH_FIELDS = [f.attname for f in Match._meta.concrete_fields]
USER_FIELDS = [f.attname for f in User._meta.concrete_fields]


def seats_read():
    return Prepared(Seat, "match_id", related=("match__puzzle", "player"), order_by=("index",))


def as_orm(match_id):
    return list(
        Seat.objects.filter(match_id=match_id)
        .select_related("match__puzzle", "player")
        .order_by("index")
    )


def same(found, expected):
    """The same rows, field by field, with the same related rows already attached."""
    assert [type(s) for s in found] == [type(s) for s in expected]
    for mine, theirs in zip(found, expected, strict=True):
        assert [getattr(mine, f) for f in FIELDS] == [getattr(theirs, f) for f in FIELDS]
        assert not mine._state.adding and mine._state.db == theirs._state.db
        for path in ("match", "player"):
            assert Seat._meta.get_field(path).is_cached(mine)
        assert mine.match.__dict__.keys() >= {f.attname for f in Match._meta.concrete_fields}
        assert mine.match.options == theirs.match.options  # JSON read back as Python
        assert mine.match.created == theirs.match.created  # a datetime, also on SQLite
        assert mine.player.username == theirs.player.username
        # every column as the ORM reads it (JSON, aware datetimes, durations), also on SQLite
        assert [getattr(mine.match, f) for f in MATCH_FIELDS] == [
            getattr(theirs.match, f) for f in MATCH_FIELDS
        ]
        assert [getattr(mine.player, f) for f in USER_FIELDS] == [
            getattr(theirs.player, f) for f in USER_FIELDS
        ]


def test_a_prepared_read_gives_what_the_queryset_gives_in_one_query_each_time(alice, bob, carol):
    first, second = make_match(alice, bob, pace="free"), make_match(bob, carol, pace="rounds")
    read = seats_read()
    for match in (first, second, first):
        with CaptureQueriesContext(connection) as queries:
            found = read(match.pk)
        assert len(queries) == 1
        same(found, as_orm(match.pk))
        with CaptureQueriesContext(connection) as queries:
            assert found[1].match.puzzle is None and found[0].player.pk == found[0].player_id
        assert len(queries) == 0  # the related rows came with the seats
    assert read(-1) == []


def test_a_prepared_read_fills_a_nullable_relation_that_has_a_row(alice):
    puzzle = Puzzle.objects.create(seed=7)
    match = Match.objects.create(
        kind=Match.Kind.SOLO, seed=7, puzzle=puzzle, players=1, created_by=alice
    )
    Seat.objects.create(match=match, player=alice, index=0)
    (seat,) = seats_read()(match.pk)
    with CaptureQueriesContext(connection) as queries:
        assert seat.match.puzzle.pk == puzzle.pk and seat.match.puzzle.seed == 7
    assert len(queries) == 0


def test_one_row_or_the_models_does_not_exist(alice, bob):
    match = make_match(alice, bob, pace="free")
    read = Prepared(Match, "id")
    assert read.one(match.pk) == match
    with pytest.raises(Match.DoesNotExist):
        read.one(match.pk + 1000)


def test_a_locking_read_keeps_its_lock_clause(alice, bob):
    match = make_match(alice, bob, pace="free")
    read = Prepared(Match, "id", for_update=True)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert read.one(match.pk).pk == match.pk
    locking = connection.features.has_select_for_update
    assert ("FOR UPDATE" in queries[0]["sql"]) == locking


def test_reads_it_cannot_make_the_same_way_are_refused(alice):
    with pytest.raises(ValueError, match="exactly once"):
        Prepared(Seat, "match_id", "match_id")
    with pytest.raises(TypeError):
        seats_read()(1, 2)
    with pytest.raises(ValueError):
        Prepared(Seat)
    with pytest.raises(ValueError, match="not a foreign key"):
        Prepared(Seat, "match_id", related=("index",))(1)


def test_services_read_a_match_and_lock_it_with_prepared_reads(alice, bob):
    """The reads every page and move make: the same match and seats as the ORM's."""
    match = make_match(alice, bob, pace="free")
    opened, seats, mine = services.open_match(match.pk, alice)
    assert opened == match and mine.player == alice
    same(seats, as_orm(match.pk))
    with unit.change(match.pk) as change:
        record = change.record
        assert [s.pk for s in record.seats] == [s.pk for s in seats]
        assert all(s.match is record.match for s in record.seats)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL server's plans")
@pytest.mark.django_db
def test_postgresql_plans_a_repeated_query_once(alice, bob):
    """Parameters go to the server apart from the SQL, so a query asked again and again (a
    match's seats, on every page and move) is planned once per connection, not each time."""
    read = seats_read()
    match = make_match(alice, bob)
    for _ in range(6):
        read(match.pk)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        statements = [row[0] for row in cursor.fetchall()]
    assert any('FROM "games_seat"' in text and "$1" in text for text in statements)
