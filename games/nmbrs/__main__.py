"""Command line: ``play --seed 7 --players 3`` prints a whole match played by the fallback
policy, move by move, with each deal's end and the outcome."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from .game import Options, apply, outcome, setup
from .policy import choose


def _scores(scores: Sequence[int]) -> str:
    return "  ".join(f"player {seat + 1}: {score}" for seat, score in enumerate(scores))


def play(seed: int, players: int, options: Options, out: TextIO | None = None) -> int:
    """Play a match with the fallback policy in every seat, printing every move; returns
    the number of moves."""
    out = out or sys.stdout
    state = setup(players, seed, options)
    moves = 0
    deal = 0
    while not state.over:
        if state.deal != deal:
            deal = state.deal
            print(f"deal {deal}: player {state.starter + 1} starts, discard {state.top}", file=out)
        player = state.to_move
        assert player is not None
        move = choose(state, player)
        score = state.scores[player]
        offered = state.phase == "offer"
        apply(state, player, move)
        moves += 1
        note = " (offered)" if offered else ""
        if move.is_play:
            note = f" (+{state.scores[player] - score})" if state.deal == deal else ""
        print(f"  player {player + 1}: {move}{note}", file=out)
        if state.deal != deal or state.over:
            summary = state.last_deal
            assert summary is not None
            who = "nobody" if summary["out"] is None else f"player {summary['out'] + 1}"
            print(f"deal {deal} ends: {who} is out; {_scores(state.scores)}", file=out)
    result = outcome(state)
    assert result is not None
    winners = ", ".join(f"player {seat + 1}" for seat in result.winners)
    print(f"game over after {moves} moves: {winners} won; {_scores(result.scores)}", file=out)
    return moves


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.nmbrs", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    play_parser = commands.add_parser("play", help="the fallback policy plays a whole match")
    play_parser.add_argument("--seed", type=int, default=0)
    play_parser.add_argument("--players", type=int, default=2, choices=range(2, 9))
    play_parser.add_argument("--advanced", action="store_true", help="the advanced rules")
    play_parser.add_argument("--simplified", action="store_true", help="the simplified version")
    play_parser.add_argument("--target", type=_positive, default=100, help="score that ends it")
    args = parser.parse_args(argv)
    options = Options(advanced=args.advanced, simplified=args.simplified, target=args.target)
    play(args.seed, args.players, options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
