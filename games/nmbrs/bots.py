"""Bots: nmbrs! players of three strengths that see what a player sees.

- ``easy``: a beginner: a random legal step 70% of the time, otherwise the fallback policy;
- ``medium``: the fallback policy (``policy.choose``), which also takes offered discards
  it can use;
- ``strong``: Monte Carlo over the decisions that matter: whether to take the discard (or an
  offered one), which play to make, which card to discard. Each candidate step is followed
  by the policy for every player to the end of the deal, over the same sampled hands and
  decks (``sample_hidden`` from the bot's seat, so it never knows a hidden card), and the
  step with the best average (the bot's points minus the best opponent's) is made.

Budgets are counts (candidates, playouts) and every random choice comes from the caller's
generator, so the same position and generator give the same step.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import CARDS
from .game import Options, State, apply, setup
from .moves import Move
from .plays import legal_plays
from .policy import DONE, PASS, TAKE, choose, discard_choice, random_step
from .view import sample_hidden

__all__ = ["BUDGETS", "STRENGTHS", "Budget", "bot_match", "bot_step"]

STRENGTHS = ("easy", "medium", "strong")


@dataclass(frozen=True, slots=True)
class Budget:
    """``noise``: the share of random steps; ``plays``: plays tried besides the policy's;
    ``discards``: discards tried; ``playouts``: deals played on for each candidate."""

    noise: float = 0.0
    plays: int = 0
    discards: int = 0
    playouts: int = 0


BUDGETS = {
    "easy": Budget(noise=0.7),
    "medium": Budget(),
    "strong": Budget(plays=2, discards=3, playouts=8),
}
#: A playout longer than this many steps is cut off where it stands.
PLAYOUT_STEPS = 400


def bot_step(strength: str, state: State, player: int, rng: random.Random) -> Move:
    """The next step of a bot of ``strength`` for ``player``, who owes a decision.

    >>> from games.nmbrs.game import setup
    >>> state = setup(2, seed=4)
    >>> str(bot_step("medium", state, state.to_move, random.Random(1))) in ("take", "pass")
    True
    """
    if strength not in BUDGETS:
        raise ValueError(f"strength must be one of {', '.join(STRENGTHS)}, not {strength!r}")
    budget = BUDGETS[strength]
    if budget.noise and rng.random() < budget.noise:
        return random_step(state, player, rng)
    policy = choose(state, player)
    if not budget.playouts:
        return policy
    candidates = _candidates(state, player, policy, budget)
    if len(candidates) == 1:
        return policy
    worlds = [sample_hidden(state, player, rng) for _ in range(budget.playouts)]
    totals = {}
    for move in candidates:
        totals[move] = sum(_playout(world, player, move) for world in worlds)
    return max(candidates, key=lambda move: (totals[move], move == policy))


def _candidates(state: State, player: int, policy: Move, budget: Budget) -> list[Move]:
    """The steps worth a playout: the policy's first, then the alternatives it weighs."""
    if state.phase in ("offer", "draw"):
        if state.phase == "draw" and state.passed:
            return [policy]
        return [policy] + [m for m in (TAKE, PASS) if m != policy]
    moves = [policy]
    plans = legal_plays(state, player)
    if state.owed is not None:
        plans = [p for p in plans if state.owed in p.out]
    plans.sort(key=lambda p: (-p.points, -len(p.out), str(p.move)))
    for plan in plans[: budget.plays]:
        if plan.move not in moves:
            moves.append(plan.move)
    if state.owed is None:
        if state.options.simplified:
            if DONE not in moves:
                moves.append(DONE)
        else:
            moves.extend(m for m in _discards(state, player, budget) if m not in moves)
    return moves


def _discards(state: State, player: int, budget: Budget) -> list[Move]:
    """The policy's discard and the cards of highest value (lost if the deal ends)."""
    if len(state.hands[player]) < 1:
        return []
    first = discard_choice(state, player)
    others = sorted(set(state.hands[player]) - {first}, key=lambda c: -CARDS[c].value)
    return [Move("discard", card=c) for c in [first, *others][: budget.discards]]


def _playout(world: State, player: int, move: Move) -> float:
    """The bot's points minus the best opponent's at the end of the deal, after ``move``
    and the policy for everyone (on a copy of ``world``)."""
    state = world.copy()
    before = list(state.scores)
    deal = state.deal
    try:
        apply(state, player, move)
    except ValueError:
        return float("-inf")
    for _ in range(PLAYOUT_STEPS):
        mover = state.to_move
        if state.over or state.deal != deal or mover is None:
            break
        apply(state, mover, choose(state, mover))
    gains = [after - start for after, start in zip(state.scores, before, strict=True)]
    others = [g for p, g in enumerate(gains) if p != player and not state.left[p]]
    return gains[player] - (max(others) if others else 0)


def bot_match(
    strengths: Sequence[str], seed: int, options: Options | None = None
) -> tuple[list[int], list[list[float]]]:
    """A whole match between bots of ``strengths`` (one per seat) on the deals of ``seed``:
    the final scores and, per seat, the seconds each of its steps took. Each bot sees only
    a state ``sample_hidden`` drew for its seat."""
    state = setup(len(strengths), seed, options)
    rng = random.Random(f"bots:{seed}")
    seconds: list[list[float]] = [[] for _ in strengths]
    while not state.over:
        player = state.to_move
        assert player is not None
        started = time.perf_counter()
        move = bot_step(strengths[player], sample_hidden(state, player, rng), player, rng)
        seconds[player].append(time.perf_counter() - started)
        apply(state, player, move)
    return list(state.scores), seconds
