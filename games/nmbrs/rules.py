"""nmbrs! as the platform hosts it: the game contract (``games.contract.Rules``) over this
package's state, moves and views.

>>> from games.contract import Rules
>>> isinstance(RULES, Rules), RULES.slug, RULES.name, RULES.players
(True, 'nmbrs', 'nmbrs!', range(2, 9))
>>> state = RULES.setup(2, 7, RULES.options({"players": 2}))
>>> sorted(RULES.to_move(state)), RULES.turn(state, 0), RULES.due(state, 0)
([0], 1, Due(share=1.0, minimum_seconds=0, strike=True))
>>> state = RULES.apply(state, 0, RULES.parse_move("pass"))
>>> sorted(RULES.to_move(state)), RULES.offer_pending(state, 1), RULES.turn(state, 1)
([1], True, 2)
>>> RULES.due(state, 1)
Due(share=0.25, minimum_seconds=600, strike=False)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from games.contract import Due, Outcome
from games.infra import pickled

from . import game
from .bots import STRENGTHS, bot_step
from .game import Options, State
from .moves import Move
from .policy import PASS, choose, random_step
from .view import View, sample_hidden, view

__all__ = ["OFFER_DUE", "RULES", "TURN_DUE", "NmbrsRules"]

#: A turn (draw, plays, discard) has the match's whole time per move; missing it is a strike.
TURN_DUE = Due()
#: An offered discard: a quarter of the time per move, at least 10 minutes, no strike.
OFFER_DUE = Due(share=0.25, minimum_seconds=600, strike=False)


class NmbrsRules:
    """The card game nmbrs! for 2-8 players."""

    slug = "nmbrs"
    name = "nmbrs!"
    players = range(game.MIN_PLAYERS, game.MAX_PLAYERS + 1)

    def options(self, data: Mapping[str, Any]) -> Options:
        return Options.from_data(data)

    def dump_options(self, options: Options) -> dict[str, Any]:
        return options.to_data()

    def setup(self, players: int, seed: int, options: Options) -> State:
        return game.setup(players, seed, options)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def to_move(self, state: State) -> frozenset[int]:
        player = state.to_move
        return frozenset() if player is None else frozenset((player,))

    def turn(self, state: State, player: int) -> int:
        """Numbers a player's decisions: a whole turn (draw, plays, discard) is one, each
        offer of a discard another."""
        return state.decisions[player]

    def due(self, state: State, player: int) -> Due:
        return OFFER_DUE if self.offer_pending(state, player) else TURN_DUE

    def offer_pending(self, state: State, player: int) -> bool:
        """Whether ``player`` is being offered the discard now (the answer is take or pass)."""
        return state.phase == "offer" and state.offer_to == player

    def standing_move(self, state: State, player: int, prefs: Mapping[str, Any]) -> Move | None:
        """The answer a player gives without being asked: ``pass`` to an offered discard
        when they chose "always pass" (``prefs["always_pass"]``) for the match."""
        if prefs.get("always_pass") and self.offer_pending(state, player):
            return PASS
        return None

    def apply(self, state: State, player: int, move: Move) -> State:
        return game.apply(state, player, move)

    def leave(self, state: State, player: int) -> State:
        return game.leave(state, player)

    def auto_move(self, state: State, player: int) -> Move:
        """The fallback for a missed deadline: ``pass`` for an offer (RULES 7.2: an
        unanswered offer counts as pass), else the fallback policy's next step of the turn."""
        if self.offer_pending(state, player):
            return PASS
        return choose(state, player)

    def random_move(self, state: State, player: int, rng: random.Random) -> Move:
        return random_step(state, player, rng)

    def view(self, state: State, player: int | None) -> View:
        return view(state, player)

    bot_strengths = STRENGTHS

    def bot_move(self, state: State, player: int, strength: str, rng: random.Random) -> Move:
        return bot_step(strength, state, player, rng)

    def sample_hidden(self, state: State, player: int | None, rng: random.Random) -> State:
        return sample_hidden(state, player, rng)

    def score(self, state: State, player: int) -> int:
        return state.scores[player]

    def progress(self, state: State, player: int) -> int:
        """Turns ``player`` has completed."""
        return state.turns[player]

    def outcome(self, state: State) -> Outcome | None:
        return game.outcome(state)

    def dump(self, state: State) -> dict[str, Any]:
        return state.dump()

    #: The format of the states this code writes: it changes with the package's code.
    state_format = "nmbrs-" + pickled.fingerprint(Path(__file__).parent)

    def save(self, state: State) -> bytes:
        return pickled.dumps(state)

    def restore(self, data: bytes) -> State:
        return pickled.loads(data, __package__, State)

    def __repr__(self) -> str:
        return "RULES"


#: The nmbrs! rules, registered as ``"nmbrs"`` in ``games.registry``.
RULES = NmbrsRules()
