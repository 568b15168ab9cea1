"""Swiss pairing at scale: ``python -m bench.swiss`` (no database).

1,000 entrants play four rounds with seeded random results at tables of 2, 3 and 4; the
figure is the time ``pair`` takes for round 5 (the best of three), with the repeats it had
to accept (target: 0) and the steps its search used, printed beside the machine's speed
(``sum(range(10**7))``, bench/calibration.py). Target: well under a second a round.
"""

from __future__ import annotations

import argparse
import random
import time

from bench.calibration import calibrate
from games.tournaments import swiss


def played_rounds(
    entrants: list[int], table_size: int, count: int, rng: random.Random
) -> list[swiss.Round]:
    """``count`` rounds paired by ``swiss.pair``, each table's ranks at random (ties too)."""
    rounds: list[swiss.Round] = []
    for _ in range(count):
        pairing = swiss.pair(entrants, rounds, table_size)
        ranks = [[rng.randint(1, len(table)) for _ in table] for table in pairing.tables]
        rounds.append(pairing.played(ranks))
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--round", type=int, default=5)
    args = parser.parse_args()
    entrants = list(range(1, args.entrants + 1))
    print(f"calibration: sum(range(10**7)) takes {calibrate() * 1000:.0f} ms")
    for table_size in swiss.TABLE_SIZES:
        rounds = played_rounds(entrants, table_size, args.round - 1, random.Random(table_size))
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            pairing = swiss.pair(entrants, rounds, table_size)
            best = min(best, time.perf_counter() - started)
        started = time.perf_counter()
        swiss.standings(entrants, rounds)
        ranking = time.perf_counter() - started
        print(
            f"tables of {table_size}: {args.entrants} entrants, round {args.round}: "
            f"pair {best * 1000:.1f} ms ({len(pairing.tables)} tables, "
            f"{len(pairing.byes)} byes, {pairing.repeats} repeats); "
            f"standings {ranking * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
