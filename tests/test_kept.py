"""The states a process keeps: a state it no longer has is read with the others, in the one
query that reads them, not asked for again on its own."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Match
from games.services.match import kept
from tests.factories import make_match, play

pytestmark = pytest.mark.django_db


def test_a_state_the_process_let_go_comes_with_the_others_in_one_query(monkeypatch, alice, bob):
    monkeypatch.setattr(kept, "CACHE", 2)
    first, second = make_match(alice, bob, pace="rounds"), make_match(alice, bob, pace="rounds")
    play(first, alice)
    play(second, alice)
    read(first)  # the process keeps each state it reads
    read(second)
    play(second, bob)
    read(second)  # a second state of the same match: the first match's is let go
    again = Match.objects.get(pk=first.pk)
    with CaptureQueriesContext(connection) as queries:
        record = kept.load_many([again], {again.pk: []})[again.pk]
    assert record.ply == 1
    assert len(queries) == 1, [q["sql"][:80] for q in queries]


def read(match):
    again = Match.objects.get(pk=match.pk)
    return kept.load_many([again], {again.pk: []})[again.pk]
