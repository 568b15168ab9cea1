"""Swiss pairing and standings (games/tournaments/swiss.py): examples, and properties over
random tournaments with hypothesis. No database."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.tournaments import swiss
from games.tournaments.swiss import Pairing, Round, Table

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(pairing: Pairing, rng: random.Random, ties: bool = True) -> Round:
    """The round with random ranks at each table (shared ranks too when ``ties``)."""
    ranks = []
    for table in pairing.tables:
        if ties:
            ranks.append([rng.randint(1, len(table)) for _ in table])
        else:
            ranks.append(rng.sample(range(1, len(table) + 1), len(table)))
    return pairing.played(ranks)


def repeats(tables, rounds) -> int:
    met = swiss.meetings(rounds)
    return sum(
        met.get(a, Counter())[b] for table in tables for a, b in itertools.combinations(table, 2)
    )


def arrangements(players, sizes):
    """Every way to seat ``players`` at tables of the multiset ``sizes``."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes)):
        left = list(sizes)
        left.remove(size)
        for companions in itertools.combinations(rest, size - 1):
            remaining = [p for p in rest if p not in companions]
            for more in arrangements(remaining, tuple(left)):
                yield [(first, *companions), *more]


def repeat_free(players, sizes, met) -> list[list[tuple[int, ...]]]:
    return [
        tables
        for tables in arrangements(players, sizes)
        if not any(
            met.get(a, Counter())[b] for t in tables for a, b in itertools.combinations(t, 2)
        )
    ]


def bye_counts(rounds) -> Counter[int]:
    return Counter(entrant for played in rounds for entrant in played.byes)


# -- examples -------------------------------------------------------------------------------


def test_four_players_two_rounds():
    entrants = [1, 2, 3, 4]
    first = swiss.pair(entrants, [], 2)
    assert first == Pairing(1, ((1, 2), (3, 4)), ())
    rounds = [first.played([[1, 2], [1, 2]])]  # 1 beats 2, 3 beats 4
    second = swiss.pair(entrants, rounds, 2)
    assert second == Pairing(2, ((1, 3), (2, 4)), ())  # winners meet winners
    rounds.append(second.played([[1, 2], [1, 1]]))  # 1 beats 3, 2 and 4 draw
    rows = swiss.standings(entrants, rounds)
    assert [(r.place, r.entrant, r.score, r.buchholz) for r in rows] == [
        (1, 1, 2, Fraction(3, 2)),
        (2, 3, 1, Fraction(5, 2)),
        (3, 2, Fraction(1, 2), Fraction(5, 2)),  # equal score, met the stronger opponents
        (4, 4, Fraction(1, 2), Fraction(3, 2)),
    ]
    assert not any(r.shared for r in rows)
    assert swiss.pair(entrants, rounds, 2).tables == ((1, 4), (3, 2))  # nobody meets twice


def test_five_players_with_a_bye():
    entrants = [1, 2, 3, 4, 5]
    first = swiss.pair(entrants, [], 2)
    assert first == Pairing(1, ((1, 2), (3, 4)), (5,))  # the lowest seed sits out
    rounds = [first.played([[1, 2], [1, 2]])]
    assert swiss.scores(entrants, rounds)[5] == 1  # a bye is worth a win
    second = swiss.pair(entrants, rounds, 2)
    # 1, 3 and 5 have a point: 1-3, then 5 floats down to 2; 4 has the bye, 5 not again
    assert second == Pairing(2, ((1, 3), (5, 2)), (4,))
    rounds.append(second.played([[1, 2], [2, 1]]))
    third = swiss.pair(entrants, rounds, 2)
    assert third.byes not in [(4,), (5,)]
    assert third.repeats == 0


def test_ten_players_at_tables_of_four():
    entrants = list(range(1, 11))
    first = swiss.pair(entrants, [], 4)
    assert first.tables == ((1, 2, 3, 4), (5, 6, 7), (8, 9, 10)) and first.byes == ()
    rounds = [first.played([[1, 2, 3, 4], [1, 2, 3], [1, 2, 3]])]
    points = swiss.scores(entrants, rounds)
    assert [points[p] for p in (1, 2, 3, 4)] == [1, Fraction(2, 3), Fraction(1, 3), 0]
    assert [points[p] for p in (5, 6, 7)] == [1, Fraction(1, 2), 0]
    second = swiss.pair(entrants, rounds, 4)
    assert sorted(map(len, second.tables), reverse=True) == [4, 3, 3]
    # a table of 4 out of 3 tables of round 1 seats two who met: one repeat, no more
    assert second.repeats == 1 == repeats(second.tables, rounds)
    assert second.tables == ((1, 5, 8, 2), (6, 9, 3), (4, 7, 10))


def test_table_sizes():
    assert swiss.table_sizes(10, 4) == ((4, 3, 3), 0)
    assert swiss.table_sizes(12, 4) == ((4, 4, 4), 0)
    assert swiss.table_sizes(5, 4) == ((3, 2), 0)
    assert swiss.table_sizes(7, 3) == ((3, 2, 2), 0)
    assert swiss.table_sizes(7, 2) == ((2, 2, 2), 1)
    assert swiss.table_sizes(2, 4) == ((2,), 0)
    assert swiss.table_sizes(1, 3) == ((), 1)
    assert swiss.table_sizes(0, 2) == ((), 0)
    with pytest.raises(ValueError):
        swiss.table_sizes(10, 5)


def test_rounds_for():
    assert swiss.rounds_for(1, 2) == 0
    assert swiss.rounds_for(2, 4) == 2
    assert swiss.rounds_for(8, 2) == 4
    assert swiss.rounds_for(9, 2) == 5
    assert swiss.rounds_for(16, 4) == 3
    assert swiss.rounds_for(1000, 3) == 8


def test_a_table_ranked_by_points_and_its_shares():
    table = Table.from_points([7, 8, 9, 10], [40, 55, 40, 12])
    assert table.ranks == (2, 1, 2, 4)
    assert table.points() == {7: Fraction(1, 2), 8: 1, 9: Fraction(1, 2), 10: 0}
    assert Table((1, 2)).points() == {1: 0, 2: 0}  # not finished
    with pytest.raises(ValueError):
        Table((1,), (1,))
    with pytest.raises(ValueError):
        Table((1, 2), (1,))


def test_an_unfinished_table_is_a_meeting_but_scores_nothing():
    entrants = [1, 2, 3, 4]
    rounds = [Round((Table((1, 2)), Table((3, 4), (1, 2))))]
    assert swiss.scores(entrants, rounds) == {1: 0, 2: 0, 3: 1, 4: 0}
    assert swiss.pair(entrants, rounds, 2).tables == ((3, 1), (2, 4))


def test_the_withdrawn_are_never_paired_but_keep_their_line():
    entrants = [1, 2, 3, 4, 5]
    rounds = [swiss.pair(entrants, [], 2).played([[1, 2], [1, 2]])]
    pairing = swiss.pair(entrants, rounds, 2, withdrawn={1})
    assert 1 not in {p for table in pairing.tables for p in table} | set(pairing.byes)
    assert pairing.byes == ()  # four left: no bye
    rows = swiss.standings(entrants, rounds, withdrawn={1})
    assert [r.withdrawn for r in rows if r.entrant == 1] == [True]


def test_repeats_only_when_nothing_avoids_them():
    entrants = [1, 2]
    rounds = [swiss.pair(entrants, [], 2).played([[1, 2]])]
    pairing = swiss.pair(entrants, rounds, 2)
    assert pairing.tables == ((1, 2),) and pairing.repeats == 1


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="twice"):
        swiss.pair([1, 1], [], 2)
    with pytest.raises(ValueError, match="not entrants"):
        swiss.standings([1, 2], [Round((Table((1, 3), (1, 2)),))])


def test_a_thousand_entrants_pair_without_repeats():
    entrants = list(range(1000))
    rng = random.Random(5)
    rounds: list[Round] = []
    for _ in range(4):
        rounds.append(play(swiss.pair(entrants, rounds, 4), rng))
    pairing = swiss.pair(entrants, rounds, 4)
    assert pairing.repeats == 0 and repeats(pairing.tables, rounds) == 0


def test_the_module_imports_no_django():
    code = (
        "import sys, games.tournaments.swiss; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'django'); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for path in (ROOT / "games" / "tournaments").glob("*.py"):
        assert "django" not in path.read_text().lower(), path


# -- properties -----------------------------------------------------------------------------


def check_round(entrants, rounds, table_size, withdrawn, pairing):
    """What every pairing owes, whatever the results so far."""
    active = [e for e in entrants if e not in withdrawn]
    seated = [p for table in pairing.tables for p in table] + list(pairing.byes)
    assert sorted(seated) == sorted(active)  # everyone active exactly once, nobody else
    sizes, bye_count = swiss.table_sizes(len(active), table_size)
    assert sorted(map(len, pairing.tables)) == sorted(sizes)
    assert len(pairing.byes) == bye_count
    assert all(2 <= len(table) <= table_size for table in pairing.tables)
    assert pairing.round == len(rounds) + 1
    assert pairing.repeats == repeats(pairing.tables, rounds)
    had = bye_counts(rounds)
    for bye in pairing.byes:  # no second bye while someone active has had none
        assert had[bye] == min(had[e] for e in active)
    order = [e for e in swiss.pairing_order(entrants, rounds, withdrawn=withdrawn)]
    if pairing.tables:
        top = next(e for e in order if e not in pairing.byes)
        assert pairing.tables[0][0] == top  # the leader sits at the top table
    # deterministic: the same again, and the same whatever the order of a round's tables
    assert swiss.pair(entrants, rounds, table_size, withdrawn=withdrawn) == pairing
    shuffled = [
        Round(tuple(reversed(r.tables)), r.byes) for r in rounds
    ]  # the order of tables says nothing
    assert swiss.pair(entrants, shuffled, table_size, withdrawn=withdrawn) == pairing


def check_standings(entrants, rounds, withdrawn):
    rows = swiss.standings(entrants, rounds, withdrawn=withdrawn)
    assert sorted(r.entrant for r in rows) == sorted(entrants)
    finished = sum(Fraction(len(t.players), 2) for r in rounds for t in r.tables if t.finished)
    byes = sum(len(r.byes) for r in rounds)
    assert sum(r.score for r in rows) == finished + byes  # a table gives 1/2 a player
    merits = [(r.score, r.buchholz, r.sonneborn_berger, r.wins) for r in rows]
    assert all(a >= b for a, b in itertools.pairwise(merits))  # best first
    for index, (row, merit) in enumerate(zip(rows, merits, strict=True)):
        first = merits.index(merit)
        assert row.place == first + 1  # equal lines share the place of the first of them
        assert row.shared == (merits.count(merit) > 1)
        if index and merits[index - 1] == merit:  # within a shared place, by seed
            assert entrants.index(rows[index - 1].entrant) < entrants.index(row.entrant)
        assert row.withdrawn == (row.entrant in withdrawn)


@SETTINGS
@given(
    count=st.integers(2, 200),
    table_size=st.sampled_from(swiss.TABLE_SIZES),
    played=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_every_round_seats_everyone_as_the_rules_say(count, table_size, played, seed):
    rng = random.Random(seed)
    entrants = rng.sample(range(1, 10 * count), count)
    rounds: list[Round] = []
    withdrawn: set[int] = set()
    for _ in range(played):
        if rng.random() < 0.3:
            withdrawn.add(rng.choice(entrants))
        pairing = swiss.pair(entrants, rounds, table_size, withdrawn=withdrawn)
        check_round(entrants, rounds, table_size, withdrawn, pairing)
        rounds.append(play(pairing, rng))
        check_standings(entrants, rounds, withdrawn)


@SETTINGS
@given(
    count=st.integers(2, 8),
    table_size=st.sampled_from(swiss.TABLE_SIZES),
    played=st.integers(1, 7),
    seed=st.integers(0, 2**32),
)
def test_small_rounds_repeat_nobody_when_any_arrangement_avoids_it(count, table_size, played, seed):
    rng = random.Random(seed)
    entrants = list(range(1, count + 1))
    rounds: list[Round] = []
    for _ in range(played):
        pairing = swiss.pair(entrants, rounds, table_size)
        check_round(entrants, rounds, table_size, set(), pairing)
        met = swiss.meetings(rounds)
        sizes, bye_count = swiss.table_sizes(count, table_size)
        had = bye_counts(rounds)
        fewest = min(had[e] for e in entrants)
        candidates = [(e,) for e in entrants if had[e] == fewest] if bye_count else [()]
        possible = any(
            repeat_free([e for e in entrants if e not in bye], sizes, met) for bye in candidates
        )
        assert (pairing.repeats == 0) == possible
        if pairing.repeats == 0:
            # the leaders together: when the top of the order can share the top table
            # without a repeat anywhere, they do
            order = [e for e in swiss.pairing_order(entrants, rounds) if e not in pairing.byes]
            leaders = tuple(order[: max(sizes)])
            if any(leaders in tables for tables in repeat_free(order, sizes, met)):
                assert pairing.tables[0] == leaders
        rounds.append(play(pairing, rng))


@SETTINGS
@given(half=st.integers(2, 60), seed=st.integers(0, 2**32))
def test_winners_meet_winners(half, seed):
    """In round 2 of a 2-player swiss without draws, every table but at most one seats
    players of equal score."""
    rng = random.Random(seed)
    entrants = list(range(2 * half))
    rounds = [play(swiss.pair(entrants, [], 2), rng, ties=False)]
    points = swiss.scores(entrants, rounds)
    pairing = swiss.pair(entrants, rounds, 2)
    assert pairing.repeats == 0
    assert sum(points[a] != points[b] for a, b in pairing.tables) <= 1
