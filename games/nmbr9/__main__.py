"""Command line: ``play --seed 7`` (a solo game by the policy) and ``perft FILE``."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .board import Board
from .game import MAX_REMOVED, Game
from .placement import Placement


def play(seed: int, removed: int | str = 0, out=None) -> int:
    """Play a solo game with the fallback policy, printing every move and the display."""
    out = out or sys.stdout
    game = Game(1, seed=seed, removed=removed)
    while not game.is_over():
        number = game.current_number(0)
        round_ = game.round_of(0)
        placement = game.auto_place(0)
        level = game.board(0).tiles[-1][1]
        print(f"round {round_:2}: tile {number} -> {placement} on level {level}", file=out)
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
    perft_parser = commands.add_parser("perft", help="check a perft file of golden positions")
    perft_parser.add_argument("file", type=Path)
    args = parser.parse_args(argv)

    if args.command == "play":
        play(args.seed, args.removed)
        return 0
    data = json.loads(args.file.read_text())
    positions = data["positions"] if isinstance(data, dict) else data
    return 1 if check_perft(positions) else 0


if __name__ == "__main__":
    sys.exit(main())
