"""The nmbrs! fallback policy: ``python -m bench.nmbrs``.

Two players, one seeded deal per seed (the policy's seat alternates with the seed):

- average points per deal (points made by plays minus the hand lost at the end) of the
  policy against a random player, and of the policy against itself;
- the time the policy takes for a whole turn (every step from the draw to the discard,
  including the engine applying them), median and p95 (target <= 50 ms);
- the bots: whole 2-player matches (to 100 points) of strong against medium and of easy
  against medium, seats alternating with the seed: how often the first wins (target for
  strong: >= 60%), and the strong bot's time per step.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bench.movegen import percentile
from games.nmbrs import Options, apply, setup
from games.nmbrs.bots import bot_match
from games.nmbrs.policy import choose, random_step

#: So high that a deal never ends the game.
ENDLESS = 10**9


def play_deal(seed: int, policies: tuple[str, str], turn_ms: list[float]) -> tuple[int, int]:
    """Play the first deal of a seeded 2-player match; each seat's change of score.

    ``policies`` says per seat "policy" or "random"; the policy's whole turns are timed into
    ``turn_ms``.
    """
    state = setup(2, seed, Options(target=ENDLESS))
    rng = random.Random(f"bench:{seed}")
    before = list(state.scores)
    spent = 0.0  # seconds of the policy's turn so far
    while state.deal == 1:
        player = state.to_move
        assert player is not None
        if policies[player] != "policy":
            apply(state, player, random_step(state, player, rng))
            continue
        own_turn = player == state.current
        turns = state.turns[player]
        start = time.perf_counter()
        apply(state, player, choose(state, player))
        if own_turn:
            spent += time.perf_counter() - start
            if state.deal != 1 or state.turns[player] != turns:
                turn_ms.append(spent * 1000)
                spent = 0.0
    return state.scores[0] - before[0], state.scores[1] - before[1]


def duels(strength: str, matches: int) -> tuple[float, list[float]]:
    """The share of ``matches`` that ``strength`` wins against medium (a shared first
    place counts half), and its seconds per step."""
    won, seconds = 0.0, []
    for seed in range(matches):
        seat = seed % 2
        seats = [strength, "medium"] if seat == 0 else ["medium", strength]
        scores, times = bot_match(seats, seed)
        mine, theirs = scores[seat], scores[1 - seat]
        won += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        seconds.extend(times[seat])
    return won / matches, seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.nmbrs", description=__doc__)
    parser.add_argument("--deals", type=int, default=200, help="seeded deals (seeds 0..n-1)")
    parser.add_argument("--duels", type=int, default=40, help="bot matches per pairing")
    args = parser.parse_args(argv)

    turn_ms: list[float] = []
    policy, random_player = [], []
    for seed in range(args.deals):
        seat = seed % 2
        seats = ("policy", "random") if seat == 0 else ("random", "policy")
        gains = play_deal(seed, seats, turn_ms)
        policy.append(gains[seat])
        random_player.append(gains[1 - seat])
    selfplay = []
    for seed in range(args.deals):
        selfplay.extend(play_deal(seed, ("policy", "policy"), turn_ms))
    print(f"nmbrs! fallback policy, 2 players, {args.deals} seeded deals")
    print(
        f"  against a random player: policy {statistics.mean(policy):+.1f}   "
        f"random {statistics.mean(random_player):+.1f} points per deal"
    )
    print(f"  against itself: {statistics.mean(selfplay):+.1f} points per deal and player")
    print(
        f"  time per turn: median {statistics.median(turn_ms):.1f} ms   "
        f"p95 {percentile(turn_ms, 0.95):.1f} ms   ({len(turn_ms)} turns)"
    )
    for strength in ("strong", "easy") if args.duels > 0 else ():
        share, seconds = duels(strength, args.duels)
        ms = [s * 1000 for s in seconds]
        print(
            f"  {strength} bot against medium, {args.duels} matches: wins {share:.0%}   "
            f"per step median {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms"
        )


if __name__ == "__main__":
    main()
