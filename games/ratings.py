"""Multiplayer Elo, pure arithmetic.

A match of N players counts as one game between every pair, decided by final rank
(a shared rank is a draw). A player's change is K/(N-1) times the sum over
opponents of (actual - expected), with expected = 1/(1+10^((Rb-Ra)/400)).

>>> [round(r, 2) for r in new_ratings([1900, 2000, 2000], [1, 2, 2], [24, 24, 24], scale=False)]
[1930.72, 1984.64, 1984.64]

A puzzle is played like a game between the player and the puzzle, with a result in [0, 1]
from the score against the puzzle's par (0 at 60% of par or less, 1 at par or more):

>>> puzzle_result(90, 100), puzzle_result(50, 100), puzzle_result(130, 100)
(0.75, 0.0, 1.0)
>>> round(versus(1500, 1500, 0.75, 40), 2)
1510.0
"""

from collections.abc import Sequence

START = 1500.0
PROVISIONAL_GAMES = 20
K_PROVISIONAL = 40
K_ESTABLISHED = 20


def expected(rating: float, opponent: float) -> float:
    """The expected score of ``rating`` against ``opponent`` (0..1)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def k_factor(rated_games: int) -> int:
    """K for a player with ``rated_games`` rated matches behind them."""
    return K_PROVISIONAL if rated_games < PROVISIONAL_GAMES else K_ESTABLISHED


def is_provisional(rated_games: int) -> bool:
    return rated_games < PROVISIONAL_GAMES


def new_ratings(
    ratings: Sequence[float],
    ranks: Sequence[int],
    ks: Sequence[float],
    *,
    scale: bool = True,
) -> list[float]:
    """Ratings after a match where player i finished on ``ranks[i]`` (1 is best)."""
    n = len(ratings)
    if not n == len(ranks) == len(ks):
        raise ValueError("ratings, ranks and ks must have the same length")
    if n < 2:
        return list(ratings)
    result = []
    for i in range(n):
        total = 0.0
        for j in range(n):
            if i == j:
                continue
            if ranks[i] < ranks[j]:
                actual = 1.0
            elif ranks[i] > ranks[j]:
                actual = 0.0
            else:
                actual = 0.5
            total += actual - expected(ratings[i], ratings[j])
        factor = ks[i] / (n - 1) if scale else ks[i]
        result.append(ratings[i] + factor * total)
    return result


def versus(rating: float, opponent: float, result: float, k: float) -> float:
    """``rating`` after one game against ``opponent`` that ended ``result`` (0..1) for it."""
    return rating + k * (result - expected(rating, opponent))


def puzzle_result(score: int, par: int) -> float:
    """A puzzle attempt's result against the puzzle: (score - 0.6 par) / (0.4 par) in [0, 1]."""
    if par <= 0:
        return 1.0 if score >= par else 0.0
    return min(1.0, max(0.0, (score - 0.6 * par) / (0.4 * par)))
