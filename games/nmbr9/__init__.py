"""NMBR 9 rules engine: pieces, placements, boards, whole games (the base game and NMBR 9 ++)
and a fallback policy.

>>> from games.nmbr9 import Board, Game, Options, Placement, Turn
>>> board = Board()
>>> board.place(Placement.parse("3@0,0r1"))
0
>>> len(board.legal_placements(7))
88
>>> game = Game(players=2, seed=7, options=Options(variant="two_of_three"))
>>> game.decision(0).may_reject
True
>>> game.play(0, Turn.parse("reject"))
>>> game.decision(0) is None, game.waiting_for()
(True, (1,))
"""

from .board import RELAXATIONS, WINDOW, Board, IllegalPlacement
from .game import (
    Deal,
    Decision,
    DisplayView,
    Game,
    GameError,
    GameView,
    Options,
    deal,
    deal_game,
)
from .placement import InvalidPlacement, Placement
from .tiles import SHAPES
from .turn import SPECIALS, Build, Fill, InvalidTurn, Move, Place, Reject, Reserve, Turn

__all__ = [
    "RELAXATIONS",
    "SHAPES",
    "SPECIALS",
    "WINDOW",
    "Board",
    "Build",
    "Deal",
    "Decision",
    "DisplayView",
    "Fill",
    "Game",
    "GameError",
    "GameView",
    "IllegalPlacement",
    "InvalidPlacement",
    "InvalidTurn",
    "Move",
    "Options",
    "Place",
    "Placement",
    "Reject",
    "Reserve",
    "Turn",
    "deal",
    "deal_game",
]
