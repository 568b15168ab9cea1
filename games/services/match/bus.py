"""What happened to matches: the events a change records, and handing them to subscribers.

Every change to a match (``services.match.unit``) records what happened as events, in the order it
happened. They are handed to the subscribers registered with ``subscribe`` (the site's own
are all in ``services.match.subscribers``), in one of two steps:

- ``with_change``: just before the change commits, in its transaction, to subscribers that
  write what must stand or fall with the change (the notifications a player reads and the
  pushes owed to their devices, the e-mail a move makes due, a puzzle's counts). They add
  to the change's writes (``Writes``) and never commit anything themselves;
- after the change has committed (never for one rolled back), to subscribers that tell the
  world: the live pages, the tasks for ratings, profile figures and bots, the metrics.

A subscriber that fails is logged and counted (``nmbr9site_subscriber_failures_total``): what
it added to the writes is forgotten, the change stands, and its move is answered as if
nothing had happened. Nothing depends on an after-commit subscriber's task being delivered:
the sweep finds every piece of due work in the database.

Events carry the match (and the seat they concern) as the change left them; they say nothing
that their subscribers may not know, and subscribers pass on only what each reader may know.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from games.infra import metrics
from games.models import Match, Seat

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, eq=False)
class Event:
    """Something that happened to ``match``."""

    match: Match

    @property
    def kind(self) -> str:
        return type(self).__name__


@dataclass(frozen=True, slots=True, eq=False)
class SeatEvent(Event):
    """Something that happened to one seat of the match."""

    seat: Seat


@dataclass(frozen=True, slots=True, eq=False)
class PlayerInvited(SeatEvent):
    """The player of ``seat`` was invited to the match by the player called ``by``."""

    by: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class PlayerJoined(SeatEvent):
    """The player of ``seat`` took it (an open seat, a link's or an invitation accepted)."""


@dataclass(frozen=True, slots=True, eq=False)
class MatchStarted(Event):
    """Every seat is taken: the match began."""


@dataclass(frozen=True, slots=True, eq=False)
class MoveMade(SeatEvent):
    """A move of ``seat``'s was made (``auto``: for the player, as their time ran out or as
    they chose to answer always); it is the match's move number ``ply``."""

    ply: int = 0
    auto: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class TurnStarted(SeatEvent):
    """A decision against the clock became ``seat``'s, due at ``deadline``. ``moved``: the
    seat's own move (or its time running out) led to it; ``timed_out``: its time ran out."""

    deadline: datetime | None = None
    moved: bool = False
    timed_out: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class TurnEnded(SeatEvent):
    """``seat`` owes the decision it owed no more: made, made for it, or the match is over
    for it."""


@dataclass(frozen=True, slots=True, eq=False)
class SeatExpired(SeatEvent):
    """``seat``'s time ran out and its moves were made for it; ``strike``: what that cost
    ("one": a strike; "stands": a second, but it had made all its moves; "dropped": a
    second, and it was dropped; "": nothing)."""

    strike: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class PlayerLeft(SeatEvent):
    """The player of ``seat`` resigned (``resigned``) or was dropped; ``name`` as shown;
    ``others``: the players of the other seats."""

    resigned: bool = True
    name: str = ""
    others: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class MatchFinished(Event):
    """The match is over: ``seats`` with their places and scores."""

    seats: tuple[Seat, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class MatchCancelled(Event):
    """The match was called off, for the reason ``text`` (English, marked with
    ``gettext_noop``) with ``params``; ``players``: those of its seats."""

    text: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    players: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class DeadlineExtended(SeatEvent):
    """``seat``'s player took more time for their decision."""


@dataclass(frozen=True, slots=True, eq=False)
class Committed(SeatEvent):
    """``seat``'s player committed to a kind of move for the decision they owe."""


@dataclass(frozen=True, slots=True, eq=False)
class Reminded(SeatEvent):
    """80% of ``seat``'s time for its decision is used."""


@dataclass(frozen=True, slots=True, eq=False)
class BotsOwe(Event):
    """A bot of the match owes a move it is not yet working out."""


@dataclass(frozen=True, slots=True, eq=False)
class ReadersChanged(Event):
    """What these readers see of the match changed: the new version by audience (a seat's
    index, or "watch" for everybody else; ``services.match.versions``)."""

    versions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, eq=False)
class ChatPosted(Event):
    """Something changed in the chat room ``room`` of the match (a message written or
    removed), which the readers of ``audiences`` read (as ``ReadersChanged`` names them)."""

    room: str = ""
    audiences: tuple[str, ...] = ()


#: Every kind of event, for the subscribers that would hear of each.
KINDS: tuple[type[Event], ...] = (
    PlayerInvited,
    PlayerJoined,
    MatchStarted,
    MoveMade,
    TurnStarted,
    TurnEnded,
    SeatExpired,
    PlayerLeft,
    MatchFinished,
    MatchCancelled,
    DeadlineExtended,
    Committed,
    Reminded,
    BotsOwe,
    ReadersChanged,
    ChatPosted,
)

WithChange = Callable[[Sequence[Event], Any], None]
AfterCommit = Callable[[Sequence[Event]], None]

_with_change: list[WithChange] = []
_after_commit: list[AfterCommit] = []


def subscribe(handler: Callable, *, with_change: bool = False) -> Callable[[], None]:
    """Hand every event to ``handler`` from now on: ``handler(events, writes)`` in the
    change's transaction (``with_change``), else ``handler(events)`` after it commits.
    Returns the function that ends the subscription."""
    subscribers = _with_change if with_change else _after_commit
    if handler not in subscribers:
        subscribers.append(handler)

    def unsubscribe() -> None:
        if handler in subscribers:
            subscribers.remove(handler)

    return unsubscribe


def _name(handler: Callable) -> str:
    return f"{handler.__module__}.{getattr(handler, '__qualname__', handler)}"


def with_change(events: Sequence[Event], writes) -> None:
    """Hand ``events`` to the subscribers that write with the change (its ``writes``)."""
    if not events:
        return
    for handler in list(_with_change):
        mark = writes.mark()
        try:
            handler(events, writes)
        except Exception:
            writes.undo(mark)
            _failed(handler)


def after_commit(events: Sequence[Event]) -> None:
    """Hand ``events`` to the subscribers that act once the change has committed."""
    if not events:
        return
    for event in events:
        metrics.EVENTS.labels(event.kind).inc()
    for handler in list(_after_commit):
        try:
            handler(events)
        except Exception:
            _failed(handler)


def _failed(handler: Callable) -> None:
    name = _name(handler)
    logger.exception("subscriber %s failed; the change stands", name)
    metrics.SUBSCRIBER_FAILURES.labels(name).inc()
