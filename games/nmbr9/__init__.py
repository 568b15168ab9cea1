"""NMBR 9 rules engine: tiles, placements, boards, whole games and a fallback policy.

>>> from games.nmbr9 import Board, Placement
>>> board = Board()
>>> board.place(Placement.parse("3@0,0r1"))
0
>>> len(board.legal_placements(7))
88
"""

from .board import WINDOW, Board, IllegalPlacement
from .game import Game, GameError, OpponentView, Outcome, PlayerView, Termination, deal
from .placement import InvalidPlacement, Placement
from .tiles import SHAPES

__all__ = [
    "SHAPES",
    "WINDOW",
    "Board",
    "Game",
    "GameError",
    "IllegalPlacement",
    "InvalidPlacement",
    "OpponentView",
    "Outcome",
    "Placement",
    "PlayerView",
    "Termination",
    "deal",
]
