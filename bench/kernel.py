"""The compiled kernel against the pure-Python engine, side by side: ``python -m bench.kernel``.

In one run, each measurement is made with the pure-Python engine and with the kernel in turn
(on the same positions, games and seeds), and the answers are compared:

- the policy's valuation: every number on every perft position (the time per placement
  valued, move generation included), all values returned (``scored_moves``: most of the
  kernel's time is then spent making the Python objects) and only the best (``best_moves``);
- ``legal_placements`` on every perft position (its median time);
- the medium and strong bots' seeded games (time per move; the same moves?), with the strong
  bot's time guard lifted so that both engines play its whole budget;
- par of seeded puzzles (time per puzzle; the same result?).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.movegen import load_positions, percentile
from games.nmbr9 import kernel
from games.nmbr9.bots import BUDGETS, bot_game
from games.nmbr9.policy import best_moves, scored_moves
from games.nmbr9.puzzle import par, par_search, puzzle


def side_by_side(run: Callable[[], Any]) -> tuple[tuple[Any, float], tuple[Any, float]]:
    """``(answer, seconds)`` of ``run`` with the pure-Python engine, then with the kernel."""
    out = []
    for pure in (True, False):
        start = time.perf_counter()
        if pure:
            with kernel.pure_python():
                answer = run()
        else:
            answer = run()
        out.append((answer, time.perf_counter() - start))
    return out[0], out[1]


def _same(a: object, b: object) -> str:
    return "yes" if a == b else "NO"


def bench_values(positions, repeat: int) -> None:
    def run():
        values = []
        for _ in range(repeat):
            values = [scored_moves(b, n, remaining=9) for b, _ in positions for n in range(10)]
        return values

    def run_best():
        best = []
        for _ in range(repeat):
            best = [best_moves(b, n, 1, supply=None) for b, _ in positions for n in range(10)]
        return best

    (pure, pure_s), (fast, fast_s) = side_by_side(run)
    count = repeat * sum(len(moves) for moves in pure)
    print(
        f"placements valued (numbers 0-9 on {len(positions)} perft positions, x{repeat}): "
        f"{count}, per placement (move generation included):"
    )
    print(
        f"  every value back (scored_moves): pure Python {pure_s / count * 1e6:.2f} µs   "
        f"kernel {fast_s / count * 1e6:.3f} µs   speed-up {pure_s / fast_s:.1f}x   "
        f"same values: {_same(pure, fast)}"
    )
    (pure, pure_s), (fast, fast_s) = side_by_side(run_best)
    print(
        f"  the best one back (best_moves):  pure Python {pure_s / count * 1e6:.2f} µs   "
        f"kernel {fast_s / count * 1e6:.3f} µs   speed-up {pure_s / fast_s:.1f}x   "
        f"same best: {_same(pure, fast)}"
    )


def bench_movegen(positions, repeat: int) -> None:
    times: dict[bool, list[float]] = {True: [], False: []}
    same = True
    clock = time.perf_counter_ns
    for board, number in positions:
        answers = {}
        for pure in (True, False):
            samples = []
            for _ in range(repeat):
                if pure:
                    with kernel.pure_python():
                        start = clock()
                        answers[pure] = board.legal_placements(number)
                        samples.append(clock() - start)
                else:
                    start = clock()
                    answers[pure] = board.legal_placements(number)
                    samples.append(clock() - start)
            times[pure].append(statistics.median(samples) / 1e6)
        same = same and answers[True] == answers[False]
    pure_ms, fast_ms = statistics.median(times[True]), statistics.median(times[False])
    print(f"legal_placements on {len(positions)} perft positions (median of {repeat} runs each)")
    print(
        f"  pure Python median {pure_ms:.3f} ms   kernel {fast_ms:.3f} ms   "
        f"speed-up {pure_ms / fast_ms:.1f}x   same placements: {_same(same, True)}"
    )


def bench_bot(strength: str, games: int) -> None:
    def run():
        return [bot_game(strength, seed) for seed in range(games)]

    # the time guard lifted, so that the slower engine plays its whole budget too
    budget = BUDGETS[strength]
    BUDGETS[strength] = dataclasses.replace(budget, cap=math.inf)
    try:
        (pure, _), (fast, _) = side_by_side(run)
    finally:
        BUDGETS[strength] = budget
    pure_ms = [s * 1000 for _, _, seconds in pure for s in seconds]
    fast_ms = [s * 1000 for _, _, seconds in fast for s in seconds]
    scores = [score for score, _, _ in fast]
    same = [g[:2] for g in pure] == [g[:2] for g in fast]
    average = statistics.mean(scores)
    print(f"{strength} bot, {games} seeded games (seeds 0..{games - 1}), average {average:.1f}")
    print(
        f"  per move: pure Python median {statistics.median(pure_ms):.1f} ms, "
        f"p95 {percentile(pure_ms, 0.95):.1f} ms   "
        f"kernel median {statistics.median(fast_ms):.2f} ms, "
        f"p95 {percentile(fast_ms, 0.95):.2f} ms   "
        f"speed-up {statistics.median(pure_ms) / statistics.median(fast_ms):.1f}x   "
        f"same games: {_same(same, True)}"
    )


def bench_par(puzzles: int, effort: float) -> None:
    search = par_search(effort)

    def run():
        return [par(puzzle(seed), **search) for seed in range(puzzles)]

    (pure, pure_s), (fast, fast_s) = side_by_side(run)
    print(
        f"par of {puzzles} puzzles (beam {search['beam']}, branch {search['branch']}), "
        f"average {statistics.mean(r.score for r in fast):.1f}"
    )
    print(
        f"  pure Python {pure_s / puzzles:.2f} s per puzzle   kernel {fast_s / puzzles:.2f} s   "
        f"speed-up {pure_s / fast_s:.1f}x   same result: {_same(pure, fast)}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.kernel", description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs over the perft positions")
    parser.add_argument("--games", type=int, default=10, help="seeded games of the medium bot")
    parser.add_argument("--strong-games", type=int, default=1, help="games of the strong bot")
    parser.add_argument("--pars", type=int, default=2, help="puzzles whose par is searched")
    parser.add_argument("--par-effort", type=float, default=0.2, help="share of par's search")
    args = parser.parse_args(argv)

    if kernel.KERNEL is None:
        state = "NOT BUILT" if kernel.built() is None else "turned off by NMBR9_PURE_PYTHON"
        print(f"the kernel is {state}: nothing to compare")
        return
    print(f"pure Python and the kernel ({kernel.KERNEL.__file__}) side by side, one core")
    positions = load_positions()
    bench_values(positions, args.repeat)
    bench_movegen(positions, max(1, args.repeat))
    if args.games > 0:
        bench_bot("medium", args.games)
    if args.strong_games > 0:
        bench_bot("strong", args.strong_games)
    if args.pars > 0:
        bench_par(args.pars, args.par_effort)


if __name__ == "__main__":
    main()
