"""NMBR 9's examples for the contract tests (``tests/contract``): the player counts and
option sets a match is played out with, and the forms a match page posts for a move."""

from __future__ import annotations

from games.nmbr9.turn import Build, Fill, Move, Place, Reject, Reserve
from games.web.nmbr9.compose import Compose

#: (players, options): every case is played out at random on several seeds.
CASES: list[tuple[int, dict]] = [
    (1, {}),
    (2, {"pace": "free"}),
    (3, {"pace": "rounds"}),
    (4, {"pace": "free", "removed": 2}),
    (5, {"pace": "rounds", "removed": "random"}),
    (6, {"pace": "free"}),
    (2, {"start_tiles": True}),
    (3, {"pace": "free", "fillers": True}),
    (2, {"specials": ["move", "black", "one", "bridge", "loose", "reserve"]}),
    (2, {"pace": "free", "specials": "random2"}),
    (3, {"start_tiles": True, "fillers": True, "specials": "random2"}),
    (2, {"variant": "two_of_three"}),
    (3, {"pace": "free", "variant": "two_of_three", "fillers": True, "specials": "random2"}),
    (2, {"variant": "level_to_level"}),
    (4, {"variant": "level_to_level", "fillers": True, "specials": ["reserve", "one"]}),
    (1, {"pace": "free", "puzzle": True}),
    (3, {"pace": "free", "puzzle": True}),
]


def posted_forms(turn, ply: int) -> list[dict[str, str]]:
    """The forms a match page of NMBR 9 posts for ``turn``, each way the page offers: the
    whole turn ("reject", "reserve"); the steps composed so far with the last one's piece
    where the ghost is (``compose_fields`` and ``piece_fields.html``); the steps confirmed
    without a piece ("Confirm the turn")."""
    base = {"csrfmiddlewaretoken": "token", "ply": str(ply)}
    steps = turn.steps
    posted = []
    if len(steps) == 1 and isinstance(steps[0], Reject | Reserve):
        posted.append({**base, "turn": str(turn)})
    *before, last = steps
    so_far = type(turn)(tuple(before)) if before else None
    main_done = any(isinstance(step, Place | Reserve | Reject) for step in before)
    spot = None
    number: int | str | None
    if isinstance(last, Place):
        compose = Compose(so_far, "", last.specials, last.marker)
        spot, number = last.placement, last.placement.number
    elif isinstance(last, Fill):
        compose = Compose(so_far, str(last.placement.piece), marker=None)
        spot, number = last.placement, None
    elif isinstance(last, Build):
        compose = Compose(so_far, "build")
        spot, number = last.placement, last.placement.number
    elif isinstance(last, Move):
        compose = Compose(so_far, "move", source=last.source)
        spot, number = last.target, None
    if spot is not None:
        number = number if number is not None or main_done else ""
        posted.append(
            {
                **base,
                **compose.query(),
                "number": "" if number is None else str(number),
                "x": str(spot.x),
                "y": str(spot.y),
                "rotation": str(spot.rotation),
            }
        )
    if any(isinstance(step, Place | Reserve | Reject) for step in steps):
        posted.append({**base, "steps": str(turn), "piece": "none"})
    return posted
