"""The NMBR 9 bots and par: ``python -m bench.bots``.

Per strength, the average score of seeded solo games (seeds 0..n-1) and the time per move
(median, p95); then the average par of seeded puzzles and the time each search took. Games
are shared out over ``--processes`` worker processes (one per core). The engine is the compiled
kernel when it is built, pure Python with ``NMBR9_PURE_PYTHON=1`` (the same games, slower).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from bench.movegen import percentile
from games.nmbr9 import kernel
from games.nmbr9.bots import STRENGTHS, bot_game
from games.nmbr9.puzzle import best_par, puzzle


def _game(job: tuple[str, int]) -> tuple[int, list[float]]:
    score, _, seconds = bot_game(*job)
    return score, seconds


def _par(seed: int) -> tuple[int, float]:
    started = time.perf_counter()
    score = best_par(puzzle(seed)).score
    return score, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__)
    parser.add_argument("--games", type=int, default=1000, help="games for easy and medium")
    parser.add_argument("--strong-games", type=int, default=1000, help="games for strong")
    parser.add_argument("--pars", type=int, default=100, help="puzzles whose par is searched")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)

    engine = "the compiled kernel" if kernel.KERNEL is not None else "pure Python"
    print(f"engine: {engine} (NMBR9_PURE_PYTHON=1 for pure Python)")
    with contextlib.ExitStack() as stack:
        mapper = map
        if args.processes > 1:
            context = multiprocessing.get_context("spawn")
            pool = stack.enter_context(ProcessPoolExecutor(args.processes, mp_context=context))
            mapper = pool.map
        for strength in STRENGTHS:
            games = args.strong_games if strength == "strong" else args.games
            if games <= 0:
                continue
            results = list(mapper(_game, [(strength, seed) for seed in range(games)]))
            scores = [score for score, _ in results]
            ms = [s * 1000 for _, seconds in results for s in seconds]
            print(
                f"{strength:<7} {games} games: average {statistics.mean(scores):.1f}   "
                f"per move median {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms"
            )
        if args.pars > 0:
            results = list(mapper(_par, range(args.pars)))
            seconds = [s for _, s in results]
            print(
                f"par     {args.pars} puzzles: average {statistics.mean(s for s, _ in results):.1f}"
                f"   per puzzle median {statistics.median(seconds):.1f} s, "
                f"p95 {percentile(seconds, 0.95):.1f} s (one core each)"
            )


if __name__ == "__main__":
    main()
