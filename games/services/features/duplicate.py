"""Duplicate scoring, as in duplicate bridge: pure arithmetic, no database.

Every entrant plays the same deal; on each game an entrant earns a match point for every
entrant who scored less and half a point for every other entrant who scored the same, as a
percentage of the most they could earn (``matchpoints``). The standings (``standings``) rank
by the average percentage over the games that count, then by the total score; entrants equal
on both share a rank.

>>> matchpoints({"a": 50, "b": 40, "c": 40})
{'a': 100.0, 'b': 25.0, 'c': 25.0}
>>> [(s.player, s.rank) for s in standings(["a", "b", "c"], [{"a": 50, "b": 40, "c": 40}])]
[('a', 1), ('b', 2), ('c', 2)]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass


def matchpoints[K: Hashable](scores: Mapping[K, int]) -> dict[K, float]:
    """Each entrant's match points on one game in per cent: (lower + ties / 2) / (n - 1).
    A game with a single entrant gives them 100."""
    n = len(scores)
    if n == 1:
        return dict.fromkeys(scores, 100.0)
    values = list(scores.values())
    points = {}
    for player, mine in scores.items():
        lower = sum(1 for other in values if other < mine)
        ties = sum(1 for other in values if other == mine) - 1
        points[player] = (lower + ties / 2) / (n - 1) * 100
    return points


@dataclass(frozen=True, slots=True)
class Standing[K: Hashable]:
    player: K
    played: int
    score: int
    percent: float
    rank: int


def standings[K: Hashable](
    players: Iterable[K], games: Sequence[Mapping[K, int]]
) -> list[Standing[K]]:
    """The standings of ``players`` after ``games``: for each game, the scores that count on
    it (every entrant's once it is closed, only those finished while it is open), compared
    among themselves. Ranked by average percentage, then total score; equal: the same rank."""
    totals: dict[K, list] = {player: [0, 0, 0.0] for player in players}
    for scores in games:
        counted = {p: s for p, s in scores.items() if p in totals}
        for player, percent in matchpoints(counted).items() if counted else ():
            totals[player][0] += 1
            totals[player][1] += counted[player]
            totals[player][2] += percent
    rows = [
        (player, played, score, round(points / played, 2) if played else 0.0)
        for player, (played, score, points) in totals.items()
    ]
    rows.sort(key=lambda row: (-row[3], -row[2]))
    ranked: list[Standing[K]] = []
    for place, (player, played, score, percent) in enumerate(rows, start=1):
        last = ranked[-1] if ranked else None
        same = last is not None and (last.percent, last.score) == (percent, score)
        rank = last.rank if same and last is not None else place
        ranked.append(Standing(player, played, score, percent, rank))
    return ranked
