"""Timings of the NMBR 9 engine: ``python -m bench.movegen``.

- ``legal_placements`` over every golden position of tests/nmbr9/data/perft.json, also with
  the rules NMBR 9 ++'s special tiles lift ("one", "bridge", "loose", all three);
- ``Board.level_of`` and ``Board.place`` for previews on 19-tile displays;
- the fallback policy over 200 seeded solo games (games per second, average score).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from games.nmbr9 import Board, Game, Placement
from games.nmbr9.policy import fallback_placement

PERFT = Path(__file__).resolve().parents[1] / "tests" / "nmbr9" / "data" / "perft.json"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def load_positions() -> list[tuple[Board, int]]:
    positions = json.loads(PERFT.read_text())["positions"]
    return [
        (Board.from_placements(Placement(*p) for p in position["placements"]), position["next"])
        for position in positions
    ]


#: The relaxations timed besides the plain rules.
RELAXATIONS: list[frozenset[str]] = [
    frozenset({"one"}),
    frozenset({"bridge"}),
    frozenset({"loose"}),
    frozenset({"one", "bridge", "loose"}),
]


def bench_movegen(
    positions: list[tuple[Board, int]],
    repeat: int,
    relaxations: Sequence[frozenset[str]] = (),
) -> dict[frozenset[str], list[float]]:
    """Per rule set (the plain rules first) and position: the median time of
    ``legal_placements`` in ms. The rule sets are timed in turn on each position, so that a
    change in the machine's load affects them alike."""
    rule_sets = [frozenset(), *relaxations]
    times: dict[frozenset[str], list[float]] = {relax: [] for relax in rule_sets}
    clock = time.perf_counter_ns
    for board, number in positions:
        for relax in rule_sets:
            board.legal_placements(number, relax)
        samples: dict[frozenset[str], list[int]] = {relax: [] for relax in rule_sets}
        for _ in range(repeat):
            for relax in rule_sets:
                start = clock()
                board.legal_placements(number, relax)
                samples[relax].append(clock() - start)
        for relax in rule_sets:
            times[relax].append(statistics.median(samples[relax]) / 1e6)
    return times


def bench_preview(positions: list[tuple[Board, int]], repeat: int) -> dict[str, float]:
    """Median µs of level_of, is_legal (refused), copy and place on displays of 19 tiles."""
    clock = time.perf_counter_ns
    level_of, refused, place, copy = [], [], [], []
    boards = [(board, number) for board, number in positions if len(board) == 19]
    for board, number in boards:
        legal = board.legal_placements(number)
        min_x, min_y, max_x, max_y = board.bounds()
        probes = [
            Placement(number, x, y, r)
            for x in range(min_x - 2, max_x + 1, 3)
            for y in range(min_y - 2, max_y + 1, 3)
            for r in range(4)
        ]
        illegal = [p for p in probes if not board.is_legal(p)]
        for _ in range(repeat):
            for placement in legal[:: max(1, len(legal) // 20)]:
                start = clock()
                board.level_of(placement)
                level_of.append(clock() - start)
                start = clock()
                fresh = board.copy()
                middle = clock()
                fresh.place(placement)
                end = clock()
                copy.append(middle - start)
                place.append(end - middle)
            for placement in illegal[:: max(1, len(illegal) // 20)]:
                start = clock()
                board.is_legal(placement)
                refused.append(clock() - start)
    return {
        "boards": len(boards),
        "level_of": statistics.median(level_of) / 1e3,
        "level_of_refused": statistics.median(refused) / 1e3,
        "place": statistics.median(place) / 1e3,
        "copy": statistics.median(copy) / 1e3,
    }


def bench_policy(games: int) -> tuple[float, float, float, list[int]]:
    """(games per second, average score, median ms per move, scores) over seeds 0..games-1."""
    scores = []
    moves = []
    clock = time.perf_counter_ns
    start = clock()
    for seed in range(games):
        game = Game(seed=seed)
        while not game.is_over():
            before = clock()
            game.place(0, fallback_placement(game, 0))
            moves.append(clock() - before)
        scores.append(game.score(0))
    elapsed = (clock() - start) / 1e9
    return games / elapsed, statistics.mean(scores), statistics.median(moves) / 1e6, scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.movegen", description=__doc__)
    parser.add_argument("--repeat", type=int, default=15, help="timings per position")
    parser.add_argument("--games", type=int, default=200, help="seeded solo games for the policy")
    args = parser.parse_args(argv)

    positions = load_positions()
    timed = bench_movegen(positions, args.repeat, RELAXATIONS)
    times = timed[frozenset()]
    print(f"legal_placements over {len(positions)} perft positions ({args.repeat} runs each)")
    print(
        f"  median {statistics.median(times):.3f} ms   p95 {percentile(times, 0.95):.3f} ms   "
        f"max {max(times):.3f} ms   mean {statistics.mean(times):.3f} ms"
    )
    base = statistics.median(times)
    for relax in RELAXATIONS:
        relaxed = timed[relax]
        label = "+".join(sorted(relax))
        print(
            f"  relax {label:18} median {statistics.median(relaxed):.3f} ms   "
            f"p95 {percentile(relaxed, 0.95):.3f} ms   "
            f"{statistics.median(relaxed) / base:.2f}x the plain median"
        )

    preview = bench_preview(positions, 5)
    print(f"preview on {preview['boards']} displays of 19 tiles (median)")
    print(
        f"  level_of {preview['level_of']:.1f} µs (legal)   "
        f"is_legal {preview['level_of_refused']:.1f} µs (refused)   "
        f"place {preview['place']:.1f} µs   copy {preview['copy']:.1f} µs"
    )

    rate, average, per_move, scores = bench_policy(args.games)
    print(f"fallback policy over {args.games} seeded solo games (seeds 0..{args.games - 1})")
    print(
        f"  average score {average:.2f}   min {min(scores)}   max {max(scores)}   "
        f"{rate:.1f} games/s   {per_move:.2f} ms per move (median)"
    )


if __name__ == "__main__":
    main()
