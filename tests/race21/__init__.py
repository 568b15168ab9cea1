"""Race to 21, a game made for the tests only, as a game package (``games.registry``): its
rules (``rules``), web adapter (``adapter``), templates and static files, and the examples
the contract tests play. ``tests/test_third_game.py`` adds it to the site's games."""

from games.contract import BotRules, Rules
from tests.race21.rules import RULES as RACE21
from tests.race21.rules import Move, Options, State, View

RULES: Rules[State, Move, View, Options] = RACE21
BOTS: BotRules = RACE21

__all__ = ["RULES"]
