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
from games.nmbr9.puzzle import PAR_BEAM, PAR_BRANCH, par, puzzle


def policy_alone(seed: int) -> int:
    deal = puzzle(seed)
    board = deal.board()
    for index in range(1, len(deal.order)):
        board.place(choose(board, deal.order[index], supply=deal.supply_after(index)))
    return board.score()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.par", description=__doc__)
    parser.add_argument("--puzzles", type=int, default=10, help="seeded puzzles (seeds 0..n-1)")
    parser.add_argument("--beam", type=int, default=PAR_BEAM)
    parser.add_argument("--branch", type=int, default=PAR_BRANCH)
    args = parser.parse_args(argv)

    seconds, pars, alone = [], [], []
    for seed in range(args.puzzles):
        start = time.perf_counter()
        pars.append(par(puzzle(seed), beam=args.beam, branch=args.branch).score)
        seconds.append(time.perf_counter() - start)
        alone.append(policy_alone(seed))
    print(f"par over {args.puzzles} puzzles (beam {args.beam}, branch {args.branch})")
    print(
        f"  median {statistics.median(seconds):.2f} s   p95 {percentile(seconds, 0.95):.2f} s "
        f"per puzzle   average par {statistics.mean(pars):.1f}   "
        f"policy alone {statistics.mean(alone):.1f}"
    )


if __name__ == "__main__":
    main()
