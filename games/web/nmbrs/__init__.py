"""nmbrs! on the site, a game package (``games.registry``): the rules of ``games.nmbrs``
(``RULES``), its web adapter (``adapter.ADAPTER``), and in this app's folders its
templates, static files and German.

``RULES`` is named with every Protocol of the contract it fits; the type checker holds it
to each of them (``games.registry``)."""

from games.contract import BotRules, Rules, StandingRules
from games.nmbrs import RULES as NMBRS
from games.nmbrs import Move, Options, State, View

RULES: Rules[State, Move, View, Options] = NMBRS
BOTS: BotRules = NMBRS
STANDING: StandingRules = NMBRS

__all__ = ["RULES"]
