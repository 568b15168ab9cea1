"""Swiss tournaments of tables of 2-4 players: pairing a round, and the standings.

Data plus functions, no web framework: the tournament service keeps the entrants and the
rounds played, and asks ``pair`` for the next round and ``standings`` for the table of results.
docs/rules.md §7.4 says the same for players.

Entrants are ids (``int``) given in seed order, the highest seed (e.g. the best rating) first.
A round played is a ``Round``: its ``Table`` s, each with its players and the rank each
finished in at that table (1 = first, ties share a rank; ``Table.from_points`` ranks by
points), and its byes.

**Scoring.** A table gives each of its players 0 to 1 point, whatever its size: a player at
a table of ``n`` gets 1 for each other player they finished ahead of and 1/2 for each they
tied with, divided by ``n - 1`` (so the table's points add up to ``n / 2``). A 2-player table
is win 1, draw 1/2, loss 0; a 4-player table without ties gives 1, 2/3, 1/3, 0. A bye is
worth 1, as in chess swiss and on lichess. A table not finished yet (``ranks=None``) counts
as a meeting and scores nothing. Scores are exact ``Fraction`` s.

**Pairing** (``pair``), a Monrad-style swiss: the active entrants (not withdrawn) are ordered
by score, then seed. The round's table sizes come from ``table_sizes``: all of the wanted
size, or when the count does not divide, the fewest tables that hold everyone, sizes as even
as possible (4 players a table and 10 entrants: 4 + 3 + 3), so that nobody waits. A bye only
for a lone entrant or for an odd count at 2-player tables; it goes to the lowest in the order
among those with the fewest byes, so nobody has a second bye while another active entrant has
had none. Tables are filled from the top: the highest entrant not yet seated takes the largest
table size left, with the next entrants in the order, floating down past those they already
met. Two entrants who shared a table (finished or not) are not seated together again when any
arrangement avoids it: a depth-first search with a bound of ``SEARCH_STEPS`` steps
finds the first repeat-free arrangement in that order (the bye tried on each candidate in
turn, lowest first), so with few entrants it never misses one. Past the bound, a greedy
pairing that seats each entrant where they repeat the fewest meetings, then swaps that lower
the repeats, does its best.

**Standings** (``standings``), best first: score, then Buchholz, then Sonneborn-Berger, then
the tables won outright, then seed. Entrants equal on all but seed share a place
(``Standing.shared``: shown "=").

- *Buchholz*: for each finished table, the average final score of the others at it, summed
  over the tables (at 2-player tables, the classic sum of the opponents' scores). A bye adds
  nothing.
- *Sonneborn-Berger*: for each finished table, each other player's final score times the
  result against them (1 ahead, 1/2 tied, 0 behind), summed and divided by ``n - 1``; at
  2-player tables the classic one.

``rounds_for(entrants, table_size)`` suggests the number of rounds: the smallest ``r`` with
``table_size ** r >= entrants`` (enough rounds for one player to come out on top if every
table had a clear winner), plus one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

#: The table sizes a tournament may ask for.
TABLE_SIZES = (2, 3, 4)
#: What a bye is worth.
BYE_POINTS = Fraction(1)
#: How many steps (an entrant looked at as a table's companion) the search for a repeat-free
#: pairing takes before the greedy pairing takes over: 0.3-0.6 s on the development machine.
#: 1,000 entrants in round 5 need about one per table.
SEARCH_STEPS = 100_000

Met = Mapping[int, Counter[int]]
#: who met whom, as the search asks it
Known = Mapping[int, frozenset[int]]


@dataclass(frozen=True)
class Table:
    """A table of a round: its players, and the rank each finished in (1 = first, ties share
    a rank), or ``None`` while its match is not over."""

    players: tuple[int, ...]
    ranks: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.players) < 2 or len(set(self.players)) != len(self.players):
            raise ValueError(f"a table needs two or more different players: {self.players}")
        if self.ranks is not None and len(self.ranks) != len(self.players):
            raise ValueError("a table needs one rank per player")

    @classmethod
    def from_points(cls, players: Sequence[int], points: Sequence[float]) -> Table:
        """A finished table ranked by the players' points in its match, most first."""
        if len(points) != len(players):
            raise ValueError("a table needs one score per player")
        ranks = tuple(1 + sum(other > own for other in points) for own in points)
        return cls(tuple(players), ranks)

    @property
    def finished(self) -> bool:
        return self.ranks is not None

    def points(self) -> dict[int, Fraction]:
        """Each player's share of the table's point (all 0 while it is not finished)."""
        if self.ranks is None:
            return dict.fromkeys(self.players, Fraction(0))
        share = 2 * (len(self.players) - 1)
        return {
            player: Fraction(sum(_halves(rank, other) for other in self.ranks) - 1, share)
            for player, rank in zip(self.players, self.ranks, strict=True)
        }  # (- 1: a player's own rank ties with itself)


@dataclass(frozen=True)
class Round:
    """A round: its tables and who had a bye."""

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()


@dataclass(frozen=True)
class Pairing:
    """The next round as ``pair`` proposes it: its number (1 for the first), the tables (the
    top table first, each listing its players in pairing order), the byes, and how many
    pairs at its tables had already met (0 whenever the search found a way)."""

    round: int
    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]
    repeats: int = 0

    def played(self, ranks: Sequence[Sequence[int]]) -> Round:
        """The round once played: the ranks of each table, in the order of ``tables``."""
        return Round(
            tuple(
                Table(players, tuple(table_ranks))
                for players, table_ranks in zip(self.tables, ranks, strict=True)
            ),
            self.byes,
        )


@dataclass(frozen=True)
class Standing:
    """An entrant's line in the standings. ``place`` is shared by the entrants equal on
    everything but seed (``shared``: shown "=")."""

    place: int
    shared: bool
    entrant: int
    score: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    wins: int
    played: int
    byes: int
    withdrawn: bool


@dataclass
class _Record:
    """An entrant's results, in whole units of the tournament (``_unit``)."""

    score: int = 0
    byes: int = 0
    played: int = 0
    wins: int = 0
    #: each finished table: the others at it and this player's result against each, in
    #: halves (2 ahead, 1 tied, 0 behind)
    tables: list[list[tuple[int, int]]] = field(default_factory=list)


def _halves(own: int, other: int) -> int:
    """One player's result against another from their ranks, in halves: 2 ahead, 1 tied."""
    return 2 if own < other else 1 if own == other else 0


def _unit(rounds: Sequence[Round]) -> int:
    """The denominator that makes every score of ``rounds`` whole: a table of ``n`` gives
    halves of ``1 / (n - 1)``. Scores add up as integers, which is much faster than
    fractions."""
    return math.lcm(2, *(2 * (len(t.players) - 1) for r in rounds for t in r.tables))


def table_sizes(count: int, table_size: int) -> tuple[tuple[int, ...], int]:
    """The sizes of a round's tables for ``count`` entrants, largest first, and the number
    of byes."""
    if table_size not in TABLE_SIZES:
        raise ValueError(f"tables are of 2, 3 or 4 players, not {table_size}")
    if count < 2:
        return (), max(count, 0)
    if table_size == 2:
        return (2,) * (count // 2), count % 2
    tables = -(-count // table_size)
    base, larger = divmod(count, tables)
    return (base + 1,) * larger + (base,) * (tables - larger), 0


def rounds_for(entrants: int, table_size: int) -> int:
    """The suggested number of rounds: the smallest ``r`` with ``table_size ** r >=
    entrants``, plus one (none for fewer than 2 entrants)."""
    if table_size not in TABLE_SIZES:
        raise ValueError(f"tables are of 2, 3 or 4 players, not {table_size}")
    if entrants < 2:
        return 0
    rounds = 0
    while table_size**rounds < entrants:
        rounds += 1
    return rounds + 1


def _records(entrants: Sequence[int], rounds: Sequence[Round], unit: int) -> dict[int, _Record]:
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant is listed twice")
    records = {entrant: _Record() for entrant in entrants}
    for number, played in enumerate(rounds, 1):
        seen = [p for table in played.tables for p in table.players] + list(played.byes)
        if len(set(seen)) != len(seen):
            raise ValueError(f"round {number} seats an entrant twice")
        unknown = sorted(set(seen) - records.keys())
        if unknown:
            raise ValueError(f"round {number} seats players who are not entrants: {unknown}")
        for entrant in played.byes:
            records[entrant].byes += 1
            records[entrant].score += BYE_POINTS.numerator * unit // BYE_POINTS.denominator
        for table in played.tables:
            if table.ranks is None:
                continue
            best = min(table.ranks)
            alone = table.ranks.count(best) == 1
            per_half = unit // (2 * (len(table.players) - 1))
            for player, rank in zip(table.players, table.ranks, strict=True):
                record = records[player]
                results = [
                    (other, _halves(rank, other_rank))
                    for other, other_rank in zip(table.players, table.ranks, strict=True)
                    if other != player
                ]
                record.score += per_half * sum(halves for _, halves in results)
                record.played += 1
                record.wins += rank == best and alone
                record.tables.append(results)
    return records


def scores(entrants: Sequence[int], rounds: Sequence[Round]) -> dict[int, Fraction]:
    """Each entrant's score after ``rounds``."""
    unit = _unit(rounds)
    return {
        entrant: Fraction(record.score, unit)
        for entrant, record in _records(entrants, rounds, unit).items()
    }


def meetings(rounds: Sequence[Round]) -> dict[int, Counter[int]]:
    """For each player, how often they shared a table with each other player."""
    met: dict[int, Counter[int]] = {}
    for played in rounds:
        for table in played.tables:
            for player in table.players:
                counts = met.setdefault(player, Counter())
                counts.update(other for other in table.players if other != player)
    return met


def standings(
    entrants: Sequence[int], rounds: Sequence[Round], *, withdrawn: Collection[int] = ()
) -> list[Standing]:
    """Every entrant's line, best first (the withdrawn ones too, marked so)."""
    unit = _unit(rounds)
    records = _records(entrants, rounds, unit)
    # Buchholz and Sonneborn-Berger average over a table's others: in whole units of
    # unit * sizes (times 2 for the halves of Sonneborn-Berger)
    sizes = math.lcm(1, *(len(t.players) - 1 for r in rounds for t in r.tables))
    seed = {entrant: index for index, entrant in enumerate(entrants)}
    merits = {}
    for entrant, record in records.items():
        buchholz = sonneborn_berger = 0
        for table in record.tables:
            weight = sizes // len(table)
            buchholz += weight * sum(records[other].score for other, _ in table)
            sonneborn_berger += weight * sum(
                halves * records[other].score for other, halves in table
            )
        merits[entrant] = (
            Fraction(record.score, unit),
            Fraction(buchholz, unit * sizes),
            Fraction(sonneborn_berger, 2 * unit * sizes),
            record.wins,
        )
    ranked = sorted(entrants, key=lambda entrant: (_negated(merits[entrant]), seed[entrant]))
    counts = Counter(merits.values())
    rows: list[Standing] = []
    for index, entrant in enumerate(ranked):
        score, buchholz_points, sonneborn_berger_points, wins = merits[entrant]
        same = bool(rows) and merits[rows[-1].entrant] == merits[entrant]
        rows.append(
            Standing(
                place=rows[-1].place if same else index + 1,
                shared=counts[merits[entrant]] > 1,
                entrant=entrant,
                score=score,
                buchholz=buchholz_points,
                sonneborn_berger=sonneborn_berger_points,
                wins=wins,
                played=records[entrant].played,
                byes=records[entrant].byes,
                withdrawn=entrant in withdrawn,
            )
        )
    return rows


def _negated(
    merit: tuple[Fraction, Fraction, Fraction, int],
) -> tuple[Fraction, Fraction, Fraction, int]:
    """Best first."""
    score, buchholz, sonneborn_berger, wins = merit
    return (-score, -buchholz, -sonneborn_berger, -wins)


def pairing_order(
    entrants: Sequence[int], rounds: Sequence[Round], *, withdrawn: Collection[int] = ()
) -> list[int]:
    """The active entrants in the order that pairs them: by score, then seed."""
    points = scores(entrants, rounds)
    gone = set(withdrawn)
    return sorted(
        (entrant for entrant in entrants if entrant not in gone),
        key=lambda entrant: -points[entrant],
    )  # sorted() is stable: equal scores stay in seed order


def pair(
    entrants: Sequence[int],
    rounds: Sequence[Round],
    table_size: int,
    *,
    withdrawn: Collection[int] = (),
    search_steps: int = SEARCH_STEPS,
) -> Pairing:
    """The next round's tables and byes for ``entrants`` (ids in seed order) after ``rounds``
    (the rounds played, in order), at tables of ``table_size`` (2, 3 or 4), leaving out the
    ``withdrawn``."""
    order = pairing_order(entrants, rounds, withdrawn=withdrawn)
    sizes, bye_count = table_sizes(len(order), table_size)
    number = len(rounds) + 1
    if not sizes:
        return Pairing(number, (), tuple(order))
    met = meetings(rounds)
    byes = Counter({entrant: 0 for entrant in order})
    for played in rounds:
        byes.update(entrant for entrant in played.byes if entrant in byes)
    candidates: list[tuple[int, ...]] = [()]
    if bye_count:
        fewest = min(byes.values())
        candidates = [(entrant,) for entrant in reversed(order) if byes[entrant] == fewest]
    steps = [search_steps]
    known = {entrant: frozenset(others) for entrant, others in met.items()}
    for bye in candidates:
        seated = [entrant for entrant in order if entrant not in bye]
        found = _search(seated, sizes, known, steps)
        if found is not None:
            return Pairing(number, tuple(found), bye)
        if steps[0] <= 0:
            break
    bye = candidates[0]
    seated = [entrant for entrant in order if entrant not in bye]
    position = {entrant: index for index, entrant in enumerate(seated)}
    tables = sorted(
        (
            tuple(sorted(table, key=position.__getitem__))
            for table in _repair(_greedy(seated, sizes, met), met)
        ),
        key=lambda table: position[table[0]],
    )  # in pairing order again after the swaps
    return Pairing(number, tuple(tables), bye, sum(_repeats(table, met) for table in tables))


_NOBODY: frozenset[int] = frozenset()


class _OutOfSteps(Exception):
    """The search's steps ran out."""


def _companions(
    seated: tuple[int, ...],
    rest: Sequence[int],
    start: int,
    count: int,
    met: Known,
    steps: list[int],
) -> Iterator[tuple[int, ...]]:
    """``count`` of ``rest`` from ``start`` on who met none of ``seated`` nor each other,
    earliest first; each one looked at is a step."""
    if count == 0:
        yield ()
        return
    for index in range(start, len(rest) - count + 1):
        steps[0] -= 1
        if steps[0] < 0:
            raise _OutOfSteps
        candidate = rest[index]
        if not met.get(candidate, _NOBODY).isdisjoint(seated):
            continue
        for more in _companions((*seated, candidate), rest, index + 1, count - 1, met, steps):
            yield (candidate, *more)


def _tables(
    remaining: Sequence[int], sizes: tuple[int, ...], met: Known, steps: list[int]
) -> Iterator[tuple[tuple[int, ...], list[int], tuple[int, ...]]]:
    """The ways to seat the first of ``remaining`` without a repeat: its table, who is left,
    and the sizes left; larger tables and earlier companions first."""
    anchor, rest = remaining[0], remaining[1:]
    for size in sorted(set(sizes), reverse=True):
        left = list(sizes)
        left.remove(size)
        for companions in _companions((anchor,), rest, 0, size - 1, met, steps):
            taken = set(companions)
            yield (anchor, *companions), [p for p in rest if p not in taken], tuple(left)


def _search(
    order: list[int], sizes: tuple[int, ...], met: Known, steps: list[int]
) -> list[tuple[int, ...]] | None:
    """The first repeat-free seating of ``order`` at tables of ``sizes``, depth first (no
    recursion per table, so a thousand entrants fit), or None when there is none or the
    steps (shared with the caller, counted down) run out."""
    stack = [_tables(order, sizes, met, steps)]
    tables: list[tuple[int, ...]] = []
    try:
        while stack:
            del tables[len(stack) - 1 :]
            option = next(stack[-1], None)
            if option is None:
                stack.pop()
                continue
            table, remaining, left = option
            tables.append(table)
            if not remaining:
                return tables
            stack.append(_tables(remaining, left, met, steps))
    except _OutOfSteps:
        pass
    return None


def _cost(player: int, others: Sequence[int], met: Met) -> int:
    known = met.get(player)
    return sum(known[other] for other in others) if known else 0


def _repeats(table: Sequence[int], met: Met) -> int:
    return sum(_cost(player, table[index + 1 :], met) for index, player in enumerate(table))


def _greedy(order: list[int], sizes: tuple[int, ...], met: Met) -> list[list[int]]:
    """Tables from the top, each of the highest entrant left and those after it who add the
    fewest repeat meetings, earliest first."""
    remaining = list(order)
    tables = []
    for size in sizes:
        table = [remaining.pop(0)]
        while len(table) < size:
            best = min(range(len(remaining)), key=lambda i: (_cost(remaining[i], table, met), i))
            table.append(remaining.pop(best))
        tables.append(table)
    return tables


def _repair(tables: list[list[int]], met: Met) -> list[tuple[int, ...]]:
    """Swaps of two players between tables while one lowers the repeats, nearest tables
    first; a bounded number of passes."""
    for _ in range(20):
        improved = False
        for i, table in enumerate(tables):
            if not _repeats(table, met):
                continue
            others = sorted(range(len(tables)), key=lambda j: (abs(j - i), j))
            for j in others[1:]:
                if _swap_once(table, tables[j], met):
                    improved = True
                    if not _repeats(table, met):
                        break
        if not improved:
            break
    return [tuple(table) for table in tables]


def _swap_once(first: list[int], second: list[int], met: Met) -> bool:
    before = _repeats(first, met) + _repeats(second, met)
    for a in range(len(first)):
        for b in range(len(second)):
            first[a], second[b] = second[b], first[a]
            if _repeats(first, met) + _repeats(second, met) < before:
                return True
            first[a], second[b] = second[b], first[a]
    return False
