"""Command line: ``play --seed 7`` (a solo game by the policy, also with NMBR 9 ++ options:
``--start-tiles``, ``--fillers``, ``--specials one,move`` or ``random2``, ``--variant``) and
``perft FILE``."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .board import Board
from .game import MAX_REMOVED, VARIANTS, Game, GameError, Options
from .placement import Placement
from .policy import choose_turn


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
        placement = game.auto_place(0)
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
        decision = game.decision(0)
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
    data = json.loads(args.file.read_text())
    positions = data["positions"] if isinstance(data, dict) else data
    return 1 if check_perft(positions) else 0


if __name__ == "__main__":
    sys.exit(main())
