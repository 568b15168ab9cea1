"""Seeded playouts for the nmbrs tests: matches driven by the fallback policy and random steps."""

import random

from games.nmbrs import RULES, Options, apply, setup
from games.nmbrs.policy import random_step


def playout(players, seed, options=None, *, steps=10_000, auto=0.5):
    """Play up to ``steps`` moves (or to the end) from a new match; each move is the fallback
    step with probability ``auto``, else a random one. Returns the state and the log of
    ``(player, move text)``."""
    options = options or Options()
    state = setup(players, seed, options)
    rng = random.Random(f"tests:{players}:{seed}")
    log = []
    for _ in range(steps):
        if state.over:
            break
        player = state.to_move
        if rng.random() < auto:
            move = RULES.auto_move(state, player)
        else:
            move = random_step(state, player, rng)
        apply(state, player, move)
        log.append((player, str(move)))
    return state, log


def replay(players, seed, options, log):
    state = setup(players, seed, options or Options())
    for player, text in log:
        apply(state, player, text)
    return state


def cards_in(data):
    """Every card id a view's data mentions."""
    if isinstance(data, dict):
        found = {data["card"]} if isinstance(data.get("card"), str) else set()
        for value in data.values():
            found |= cards_in(value)
        return found
    if isinstance(data, list):
        found = set()
        for item in data:
            found |= cards_in(item)
        return found
    return set()
