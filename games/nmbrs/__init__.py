"""nmbrs! rules engine: cards, series, moves in their notation, whole matches from a seed,
player views, a fallback policy, and ``RULES`` for the platform's game contract.

>>> from games.nmbrs import RULES, Move, position, apply
>>> state = position(hands=["12,14,16,40", "1,2,3"], table=["10,20,30"], laid=[False, True])
>>> apply(state, 0, "extend 1: 40")
Traceback (most recent call last):
    ...
games.contract.IllegalMove: you must lay a series before adding cards to the table
>>> state = apply(state, 0, Move.parse("lay 12,14,16"))
>>> state.scores[0], state.table[2]
(53, (('12', 12), ('14', 14), ('16', 16)))
"""

from games.contract import IllegalMove, InvalidMove

from .cards import CARDS, JOKERS, Card, deck
from .game import Options, Plan, State, apply, leave, outcome, plan, position, setup
from .moves import Move, Placed
from .rules import RULES, NmbrsRules
from .series import doubled, points, series_problem
from .view import View, sample_hidden, view

__all__ = [
    "CARDS",
    "JOKERS",
    "RULES",
    "Card",
    "IllegalMove",
    "InvalidMove",
    "Move",
    "NmbrsRules",
    "Options",
    "Placed",
    "Plan",
    "State",
    "View",
    "apply",
    "deck",
    "doubled",
    "leave",
    "outcome",
    "plan",
    "points",
    "position",
    "sample_hidden",
    "series_problem",
    "setup",
    "view",
]
