"""The policy in NMBR 9 ++: ``python -m bench.plusplus``.

For each option set (the base game, each module alone, each special tile alone, all modules,
each variant plain and with all modules) the policy plays seeded solo games twice: with the
modules (``choose_turn``: fillers, special tiles, the reserved tile where they gain enough)
and as the fallback of docs/rules.md §6.8 (plain placements and rejects only). Printed: the
average score of each and the policy's time per turn.
"""

from __future__ import annotations

import argparse
import statistics
import time

from games.nmbr9 import Game, Options
from games.nmbr9.policy import choose_turn
from games.nmbr9.turn import SPECIALS

ALL = {"start_tiles": True, "fillers": True, "specials": SPECIALS}

#: (label, options) in the order printed.
OPTION_SETS: list[tuple[str, Options]] = [
    ("base", Options()),
    ("start tiles", Options(start_tiles=True)),
    ("gap fillers", Options(fillers=True)),
    ("breaking rules (all six)", Options(specials=SPECIALS)),
    *((f"  {name} alone", Options(specials=(name,))) for name in SPECIALS),
    ("all modules", Options(**ALL)),
    ("2 of 3", Options(variant="two_of_three")),
    ("2 of 3, all modules", Options(variant="two_of_three", **ALL)),
    ("level to level", Options(variant="level_to_level")),
    ("level to level, all modules", Options(variant="level_to_level", **ALL)),
]


def solo(seed: int, options: Options, *, modules: bool) -> tuple[int, list[float]]:
    """The score of one solo game and the seconds each turn took to choose."""
    game = Game(seed=seed, options=options)
    seconds = []
    while not game.is_over():
        start = time.perf_counter()
        turn = choose_turn(game, 0, modules=modules)
        seconds.append(time.perf_counter() - start)
        game.play(0, turn)
    return game.score(0), seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.plusplus", description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="seeded solo games per option set")
    args = parser.parse_args(argv)

    print(f"policy over {args.games} seeded solo games per option set (seeds 0..{args.games - 1})")
    print(f"  {'option set':30} {'policy':>7} {'fallback':>9} {'ms/turn':>8} {'max ms':>7}")
    for label, options in OPTION_SETS:
        scores, fallback, seconds = [], [], []
        for seed in range(args.games):
            score, turns = solo(seed, options, modules=True)
            scores.append(score)
            seconds.extend(turns)
            fallback.append(solo(seed, options, modules=False)[0])
        print(
            f"  {label:30} {statistics.mean(scores):7.2f} {statistics.mean(fallback):9.2f} "
            f"{1000 * statistics.mean(seconds):8.2f} {1000 * max(seconds):7.1f}"
        )


if __name__ == "__main__":
    main()
