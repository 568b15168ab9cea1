"""nmbrs! rules engine: the deck, series and the move notation.

>>> from games.nmbrs import Move
>>> str(Move.parse("lay 16,14,12"))
'lay 12,14,16'
"""

from games.contract import IllegalMove, InvalidMove

from .cards import CARDS, JOKERS, Card, deck
from .moves import Move, Placed
from .series import doubled, points, series_problem

__all__ = [
    "CARDS",
    "JOKERS",
    "Card",
    "IllegalMove",
    "InvalidMove",
    "Move",
    "Placed",
    "deck",
    "doubled",
    "points",
    "series_problem",
]
