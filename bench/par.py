"""Par of puzzles: ``python -m bench.par``.

For seeded puzzles: the time the par search takes per puzzle (what one ``compute_par`` task
costs a worker), and par against the fallback policy playing the same deal alone.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.movegen import percentile
from games.nmbr9.policy import choose
from games.nmbr9.puzzle import best_par, par, par_searches, puzzle


def policy_alone(seed: int) -> int:
    deal = puzzle(seed)
    board = deal.board()
    for index in range(1, len(deal.order)):
        board.place(choose(board, deal.order[index], supply=deal.supply_after(index)))
    return board.score()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.par", description=__doc__)
    parser.add_argument("--puzzles", type=int, default=10, help="seeded puzzles (seeds 0..n-1)")
    parser.add_argument("--beam", type=int, help="one search of this beam (with --branch)")
    parser.add_argument("--branch", type=int, help="one search of this branch (with --beam)")
    args = parser.parse_args(argv)

    seconds, pars, alone = [], [], []
    for seed in range(args.puzzles):
        start = time.perf_counter()
        if args.beam and args.branch:
            pars.append(par(puzzle(seed), beam=args.beam, branch=args.branch).score)
        else:
            pars.append(best_par(puzzle(seed)).score)
        seconds.append(time.perf_counter() - start)
        alone.append(policy_alone(seed))
    searches = (
        [{"beam": args.beam, "branch": args.branch}]
        if args.beam and args.branch
        else par_searches()
    )
    shapes = ", ".join(f"{s['beam']} x {s['branch']}" for s in searches)
    print(f"par over {args.puzzles} puzzles (beam x branch: {shapes})")
    print(
        f"  median {statistics.median(seconds):.2f} s   p95 {percentile(seconds, 0.95):.2f} s "
        f"per puzzle   average par {statistics.mean(pars):.1f}   "
        f"policy alone {statistics.mean(alone):.1f}"
    )


if __name__ == "__main__":
    main()
