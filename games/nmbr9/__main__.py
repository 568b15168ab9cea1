"""Command line: ``play --seed 7`` (a solo game by the policy, also with NMBR 9 ++ options:
``--start-tiles``, ``--fillers``, ``--specials one,move`` or ``random2``, ``--variant``),
``bot --strength strong --seeds 5000-5099`` (a bot's solo game per seed), ``par --seeds
5000-5009`` (the par of each puzzle seed) and ``perft FILE``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .board import Board
from .bots import STRENGTHS, bot_game
from .game import MAX_REMOVED, VARIANTS, Game, GameError, Options
from .placement import Placement
from .policy import choose_turn, fallback_placement
from .puzzle import best_par, puzzle


def play(seed: int, removed: int | str = 0, out=None, options: Options | None = None) -> int:
    """Play a solo game with the fallback policy, printing every move and the display.

    With NMBR 9 ++ ``options`` the policy plays whole turns (fillers, special tiles, the
    reserved tile), printed as turn texts.
    """
    out = out or sys.stdout
    if options is not None and options.plusplus:
        return _play_plusplus(seed, options, out)
    game = Game(1, seed=seed, removed=removed)
    while not game.is_over():
        number = game.current_number(0)
        round_ = game.round_of(0)
        placement = fallback_placement(game, 0)
        game.place(0, placement)
        level = game.board(0).tiles[-1][1]
        print(f"round {round_:2}: tile {number} -> {placement} on level {level}", file=out)
    return _summary(game, out)


def _play_plusplus(seed: int, options: Options, out) -> int:
    game = Game(1, seed=seed, options=options)
    start = game.start_tile(0)
    if start is not None:
        print(f"start tile {start}", file=out)
    if game.specials:
        print(f"special tiles in play: {', '.join(game.specials)}", file=out)
    while not game.is_over():
        decision = game.expect_decision(0)
        cards = " ".join(
            str(number) if marker is None else f"{number} (marker {marker})"
            for marker, number in decision.cards
        )
        turn = choose_turn(game, 0)
        game.play(0, turn)
        print(f"round {decision.round:2}: {cards} -> {turn}", file=out)
    return _summary(game, out)


def _summary(game: Game, out) -> int:
    board = game.board(0)
    print(file=out)
    print(board.text(), file=out)
    print(file=out)
    print(f"score: {board.score()}", file=out)
    return board.score()


def check_perft(positions: Sequence[dict[str, Any]], out=None) -> int:
    """Compare the move generator with golden positions; returns how many disagree."""
    out = out or sys.stdout
    wrong = 0
    for index, position in enumerate(positions):
        problems = []
        try:
            board = Board.from_placements(Placement(*p) for p in position["placements"])
            moves = board.legal_moves(position["next"])
        except ValueError as error:
            problems.append(f"cannot set up: {error}")
        else:
            by_level = dict(Counter(str(level) for _, level in moves))
            if len(moves) != position["legal"]:
                problems.append(f"legal {len(moves)}, expected {position['legal']}")
            if by_level != position.get("legal_by_level", by_level):
                problems.append(f"by level {by_level}, expected {position['legal_by_level']}")
            if board.score() != position.get("score", board.score()):
                problems.append(f"score {board.score()}, expected {position['score']}")
        if problems:
            wrong += 1
            print(f"position {index} (next {position['next']}): {'; '.join(problems)}", file=out)
    print(f"{len(positions) - wrong}/{len(positions)} positions agree", file=out)
    return wrong


def bots(strength: str, seeds: range, out=None) -> float:
    """A bot's solo game on every seed: each score and time per move, then the average."""
    out = out or sys.stdout
    scores = []
    for seed in seeds:
        score, _, seconds = bot_game(strength, seed)
        scores.append(score)
        slowest = max(seconds) * 1000
        mean = sum(seconds) / len(seconds) * 1000
        print(f"seed {seed}: {score}   {mean:.1f} ms per move, slowest {slowest:.0f} ms", file=out)
    average = sum(scores) / len(scores)
    print(f"{strength}: average {average:.1f} over {len(scores)} games", file=out)
    return average


def pars(seeds: range, out=None, effort: float = 1.0) -> float:
    """The par of every puzzle seed (``effort``: the share of the full search), then the
    average."""
    out = out or sys.stdout
    scores = []
    for seed in seeds:
        started = time.perf_counter()
        result = best_par(puzzle(seed), effort)
        scores.append(result.score)
        print(f"seed {seed}: par {result.score}   {time.perf_counter() - started:.1f} s", file=out)
    average = sum(scores) / len(scores)
    print(f"average par {average:.1f} over {len(scores)} puzzles", file=out)
    return average


def _seeds(text: str) -> range:
    first, _, last = text.partition("-")
    if not first.isdigit() or not (last or first).isdigit() or int(last or first) < int(first):
        raise argparse.ArgumentTypeError(f"seeds are a number or a range A-B, not {text!r}")
    return range(int(first), int(last or first) + 1)


def _effort(text: str) -> float:
    try:
        effort = float(text)
    except ValueError:
        effort = 0.0
    if not 0 < effort <= 1:
        raise argparse.ArgumentTypeError(f"effort is more than 0 and at most 1, not {text!r}")
    return effort


def _specials(text: str) -> tuple[str, ...] | str:
    return text if text == "random2" else tuple(name for name in text.split(",") if name)


def _removed(text: str) -> int | str:
    if text == "random":
        return text
    if text.isdigit() and int(text) <= MAX_REMOVED:
        return int(text)
    raise argparse.ArgumentTypeError(f'must be 0-{MAX_REMOVED} or "random", not {text!r}')


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.nmbr9", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    play_parser = commands.add_parser("play", help="play a solo game with the fallback policy")
    play_parser.add_argument("--seed", type=int, default=0)
    play_parser.add_argument(
        "--removed", type=_removed, default=0, help='cards removed unseen: 0-4 or "random"'
    )
    play_parser.add_argument("--start-tiles", action="store_true", help="module new start tiles")
    play_parser.add_argument("--fillers", action="store_true", help="module gap fillers")
    play_parser.add_argument(
        "--specials",
        type=_specials,
        default=(),
        help='module breaking rules: special tiles in play (e.g. "one,move") or "random2"',
    )
    play_parser.add_argument("--variant", choices=VARIANTS, default="base")
    bot_parser = commands.add_parser("bot", help="a bot's solo game on each seed")
    bot_parser.add_argument("--strength", choices=STRENGTHS, default="medium")
    bot_parser.add_argument("--seeds", type=_seeds, default=range(0, 10), help="A-B or one")
    par_parser = commands.add_parser("par", help="the par of each puzzle seed")
    par_parser.add_argument("--seeds", type=_seeds, default=range(0, 10), help="A-B or one")
    par_parser.add_argument("--effort", type=_effort, default=1.0, help="share of the search")
    perft_parser = commands.add_parser("perft", help="check a perft file of golden positions")
    perft_parser.add_argument("file", type=Path)
    args = parser.parse_args(argv)

    if args.command == "play":
        try:
            options = Options(
                start_tiles=args.start_tiles,
                fillers=args.fillers,
                specials=args.specials,
                variant=args.variant,
                removed=args.removed,
            )
        except GameError as error:
            parser.error(str(error))
        play(args.seed, args.removed, options=options)
        return 0
    if args.command == "bot":
        bots(args.strength, args.seeds)
        return 0
    if args.command == "par":
        pars(args.seeds, effort=args.effort)
        return 0
    data = json.loads(args.file.read_text())
    positions = data["positions"] if isinstance(data, dict) else data
    return 1 if check_perft(positions) else 0


if __name__ == "__main__":
    sys.exit(main())
