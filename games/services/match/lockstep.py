"""Games held in step: the players of one deal, each in a game of their own, shown its steps
one at a time all at once (a live duplicate tournament's game: ``Puzzle.dealt``).

The match's rules are the game's, held at the deal's ``dealt`` steps (``InStep``): a player
who went through them owes nothing (``to_move``), may make no move (``apply``) and sees
nothing of the next step (``view``, the game's ``StepRules.view_dealt``), whatever the game's
own state would let them see. Every reader of such a match gets its view from here
(``record.rules_of``), so the next step stays a secret in one place until it is dealt.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.contract import IllegalMove, StepRules
from games.models import Match

#: The code of the refusal of a move for a step not dealt yet.
NOT_DEALT = "not-dealt"


class InStep:
    """``rules`` held at the deal's first ``dealt`` steps; anything else is the game's."""

    def __init__(self, rules: StepRules, dealt: int) -> None:
        self.rules = rules
        self.dealt = dealt

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def held(self, state: Any, player: int) -> bool:
        """Whether ``player`` went through every step dealt so far."""
        return self.rules.steps_taken(state, player) >= self.dealt

    def to_move(self, state: Any) -> frozenset[int]:
        owing = self.rules.to_move(state)  # type: ignore[attr-defined]
        return frozenset(player for player in owing if not self.held(state, player))

    def apply(self, state: Any, player: int, move: Any) -> Any:
        if self.held(state, player):
            raise IllegalMove(
                _("Wait for the next round: it starts for everybody at once."), code=NOT_DEALT
            )
        return self.rules.apply(state, player, move)  # type: ignore[attr-defined]

    def view(self, state: Any, player: int | None) -> Any:
        return self.rules.view_dealt(state, player, self.dealt)

    def draft(self, state: Any, player: int, text: str) -> tuple[Any, IllegalMove | None]:
        if self.held(state, player):
            refused = IllegalMove(
                _("Wait for the next round: it starts for everybody at once."), code=NOT_DEALT
            )
            return self.view(state, player), refused
        return self.rules.draft(state, player, text)  # type: ignore[attr-defined]


def in_step(match) -> bool:
    """Whether ``match`` is a game on a deal shown a step at a time (its page follows it live,
    as a match's does, though it is played alone)."""
    if match.kind != Match.Kind.DUPLICATE or match.puzzle_id is None:
        return False
    return match.puzzle.dealt is not None


def held_at(rules: Any, dealt: int | None) -> Any:
    """The rules of a match on a deal ``dealt`` steps of which are shown (None: a deal
    shown whole, or none)."""
    if dealt is None or not isinstance(rules, StepRules):
        return rules
    return InStep(rules, dealt)
