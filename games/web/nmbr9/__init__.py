"""NMBR 9 on the site, a game package (``games.registry``): the rules of ``games.nmbr9``
(``RULES``), its web adapter (``adapter.ADAPTER``), and in this app's folders its
templates, static files and German.

``RULES`` is named with every Protocol of the contract it fits; the type checker holds it
to each of them (``games.registry``)."""

from games.contract import BotRules, CommitRules, DraftRules, PaceRules, PuzzleRules, Rules
from games.nmbr9 import Game, GameView, Turn
from games.nmbr9.rules import RULES as NMBR9
from games.nmbr9.rules import MatchOptions

RULES: Rules[Game, Turn, GameView, MatchOptions] = NMBR9
DRAFTS: DraftRules = NMBR9
COMMITMENTS: CommitRules = NMBR9
PACE: PaceRules = NMBR9
BOTS: BotRules = NMBR9
PUZZLES: PuzzleRules = NMBR9

__all__ = ["RULES"]
