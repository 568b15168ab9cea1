"""nmbrs!'s examples for the contract tests (``tests/contract``): the player counts and
option sets a match is played out with, and the form a match page posts for a move."""

from __future__ import annotations

#: (players, options): every case is played out at random on several seeds.
CASES: list[tuple[int, dict]] = [
    (2, {}),
    (3, {"advanced": True}),
    (5, {"simplified": True, "target": 30}),
    (8, {}),
    (2, {"advanced": True, "simplified": True, "target": 40}),
    (8, {"target": 60}),
]


def posted_forms(move, ply: int) -> list[dict[str, str]]:
    """The form a match page of nmbrs! posts for ``move`` (``move_button.html``)."""
    return [{"csrfmiddlewaretoken": "token", "move": str(move), "ply": str(ply)}]
