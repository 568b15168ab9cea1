"""Bots: NMBR 9 players of three strengths that see what a player sees.

A bot knows its display, the tile it must place and the supply (how many tiles of each number
may still come), never the order. It places:

- ``easy``: like a beginner: often a placement drawn at random among the legal ones, otherwise
  the fallback policy's choice;
- ``medium``: the policy looking one tile ahead for its best-looking placements (the expected
  value of the best next placement over every number that may come);
- ``strong``: Monte Carlo: the best-looking placements are each played on with the policy
  over the same sampled orders of the tiles still to come, and the one with the best average
  final score is chosen; poor candidates are dropped half-way (successive halving).

On a game of any option set (``bot_turn``) a bot plays the policy's turn with the modules
(gap fillers, special tiles, the reserved tile, rejects), and where that turn simply places
the one tile on offer, the placement is the strength's own; ``easy`` also plays a random
turn now and then.

Budgets are counts (placements looked ahead, playouts), and every random choice comes from a
seed, so a bot's game on a seed is the same on any machine. ``cap`` seconds only guards
against a slow machine: a strong bot out of time plays its best candidate so far.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from . import kernel as _kernel
from .board import Board
from .game import Game, deal
from .placement import Placement
from .policy import DEFAULT, Weights, choose, choose_turn, kernel_weights, scored_moves
from .setup import check_seed
from .turn import Place, Turn

__all__ = ["BUDGETS", "STRENGTHS", "Budget", "bot_game", "bot_turn", "place"]

STRENGTHS = ("easy", "medium", "strong")


@dataclass(frozen=True, slots=True)
class Budget:
    """What a strength may spend on one placement.

    ``noise``: the share of placements drawn at random; ``lookahead``: placements looked one
    tile ahead; ``candidates``: placements tried by Monte Carlo; ``playouts``: games played
    on in all for them; ``cap``: seconds, a guard only.
    """

    noise: float = 0.0
    lookahead: int = 0
    candidates: int = 0
    playouts: int = 0
    cap: float = 2.0


#: Sized for the compiled kernel (games/nmbr9/kernel.py), with which medium takes a few ms per
#: move and strong about half a second (p95 under 1.3 s) on a 2-core machine; the pure-Python
#: engine plays the same games about ten times slower (strong then runs into ``cap``).
BUDGETS = {
    "easy": Budget(noise=0.2),
    "medium": Budget(lookahead=24),
    "strong": Budget(candidates=8, playouts=960),
}


def _check_strength(strength: object) -> Budget:
    if strength not in BUDGETS:
        raise ValueError(f"strength must be one of {', '.join(STRENGTHS)}, not {strength!r}")
    return BUDGETS[strength]


def place(
    strength: str,
    board: Board,
    number: int,
    supply: Mapping[int, int],
    rng: random.Random,
    *,
    weights: Weights = DEFAULT,
) -> Placement:
    """The placement of tile ``number`` on ``board`` a bot of ``strength`` chooses.

    ``supply`` maps each number to how many of its tiles may still come after this one;
    ``rng`` is the bot's own seeded generator.

    >>> board = Board("5@0,0r0")
    >>> supply = {n: 2 for n in range(10)}
    >>> all(board.is_legal(place(s, board, 7, supply, random.Random(1))) for s in STRENGTHS)
    True
    """
    budget = _check_strength(strength)
    if budget.noise and rng.random() < budget.noise:
        return rng.choice(board.legal_placements(number))
    return _search(budget, board, number, supply, rng, weights)


def _search(
    budget: Budget,
    board: Board,
    number: int,
    supply: Mapping[int, int],
    rng: random.Random,
    weights: Weights,
) -> Placement:
    if not budget.playouts:
        return choose(board, number, supply=supply, weights=weights, lookahead=budget.lookahead)
    return _monte_carlo(board, number, supply, rng, budget, weights)


def bot_turn(strength: str, game: Game, player: int, rng: random.Random) -> Turn:
    """The turn a bot of ``strength`` plays for ``player`` in ``game`` (which owes one),
    from what the player may know: their display, the cards on offer and the supply.

    >>> game = Game(2, seed=7)
    >>> turn = bot_turn("medium", game, 0, random.Random(1))
    >>> game.is_legal(0, turn)
    True
    """
    budget = _check_strength(strength)
    decision = game.decision(player)
    if decision is None:
        raise ValueError(f"player {player} owes no decision")
    if budget.noise and rng.random() < budget.noise:
        return game.random_turn(player, rng)
    turn = choose_turn(game, player)
    step = turn.steps[0] if len(turn.steps) == 1 else None
    if not isinstance(step, Place) or step.specials or len(decision.cards) != 1:
        return turn
    number = decision.cards[0][1]
    placement = _search(budget, game.board(player), number, game.supply(player), rng, DEFAULT)
    own = Turn.place(placement, (), step.marker)
    return own if game.is_legal(player, own) else turn


def _candidates(
    board: Board, number: int, supply: Mapping[int, int], budget: Budget, weights: Weights
) -> list[Placement]:
    """The placements worth a playout: the best by the policy's value, each different in
    what it does to the display."""
    scored = scored_moves(board, number, supply=supply, weights=weights)
    scored.sort(key=lambda move: -move[2])
    chosen: list[Placement] = []
    seen: set[tuple[frozenset[tuple[int, int]], int]] = set()
    for placement, level, _ in scored:
        key = (placement.cells(), level)
        if key in seen:
            continue
        seen.add(key)
        chosen.append(placement)
        if len(chosen) == budget.candidates:
            break
    return chosen


def _playout(board: Board, order: list[int], weights: Weights) -> int:
    """The final score when the policy places ``order`` on (a copy of) ``board``."""
    compiled = _kernel.KERNEL
    if compiled is not None:
        score = compiled.playout(*board.kernel_position(), order, kernel_weights(weights))
        if score is not None:
            return score
    board = board.copy()
    supply = Counter(order)
    for number in order:
        supply[number] -= 1
        board.place(choose(board, number, supply=supply, weights=weights))
    return board.score()


def _monte_carlo(
    board: Board,
    number: int,
    supply: Mapping[int, int],
    rng: random.Random,
    budget: Budget,
    weights: Weights,
) -> Placement:
    start = time.monotonic()
    candidates = _candidates(board, number, supply, budget, weights)
    future = [n for n, count in supply.items() for _ in range(count)]
    if len(candidates) == 1 or not future:
        return candidates[0]
    boards = {}
    for placement in candidates:
        after = board.copy()
        after.place(placement)
        boards[placement] = after
    # every candidate is played on over the same orders, so luck cancels out between them
    orders: list[list[int]] = []
    totals = dict.fromkeys(candidates, 0)
    alive = list(candidates)
    rounds, size = 0, len(alive)
    while size > 1:
        rounds, size = rounds + 1, size // 2
    left, played = budget.playouts, 0
    for round_ in range(rounds):
        share = max(1, left // (len(alive) * (rounds - round_)))
        while len(orders) < played + share:
            order = list(future)
            rng.shuffle(order)
            orders.append(order)
        for placement in alive:
            for order in orders[played : played + share]:
                totals[placement] += _playout(boards[placement], order, weights)
        left -= share * len(alive)
        played += share
        alive.sort(key=lambda p: -totals[p])
        alive = alive[: max(1, len(alive) // 2)]
        if time.monotonic() - start > budget.cap:
            break
    return alive[0]


def bot_game(strength: str, seed: int | str) -> tuple[int, tuple[Placement, ...], list[float]]:
    """A solo game of the deal of ``seed`` played by a bot: its score, its placements and
    the seconds each took."""
    seed = check_seed(seed)
    order, _ = deal(seed)
    rng = random.Random(f"bot:{strength}:{seed}")
    board = Board()
    placements, seconds = [], []
    for index, number in enumerate(order):
        supply = Counter(order[index + 1 :])
        t0 = time.perf_counter()
        placement = place(strength, board, number, supply, rng)
        seconds.append(time.perf_counter() - t0)
        board.place(placement)
        placements.append(placement)
    return board.score(), tuple(placements), seconds
