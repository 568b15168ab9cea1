"""The rematch offer at the end of a real-time match between people.

For ``WINDOW`` after a real-time match between people (no bot) finished, each of its players
may accept a rematch on its page, and withdraw until every player has accepted, or decline
it, which ends the offer for every player; the choice is kept in their seat (``Seat.prefs``,
``matchview.REMATCH`` and ``REMATCH_DECLINED``) through the unit of work, so that every
player's page, following the match live meanwhile (``follows``), shows who accepted and who
declined. Once every player of the match has accepted (those who resigned or were dropped
too) a new real-time match of the same players, game, pace and options starts at once,
rated as the first one was (``lobby.start_realtime``); a match has at most one rematch
(``Match.rematch_of``), and once it exists accepting again only leads to it. Nothing is
offered when a player's account is closed or one of the players has blocked another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Match, Seat
from games.services.features import blocks
from games.services.match import lobby, unit
from games.services.match.matchview import REMATCH, REMATCH_DECLINED, REMATCH_WINDOW
from games.services.match.record import MoveRefused

#: How long after its end a match offers its rematch.
WINDOW = REMATCH_WINDOW


@dataclass(frozen=True, slots=True)
class Offer:
    """The rematch offer as one of the match's players sees it: the names of the players
    who accepted (``accepted``, in the order of the seats), how many must (``players``),
    whether the reader did (``mine``), the rematch once it started, and the name of the
    player who declined it (``declined``; ``declined_mine``: the reader did), which ended
    the offer."""

    accepted: list[str]
    players: int
    mine: bool
    rematch: Match | None = None
    declined: str = ""
    declined_mine: bool = False

    @property
    def waiting(self) -> bool:
        """The players' answers are still awaited: their pages follow them."""
        return self.rematch is None and not self.declined


def offer(match: Match, seats: Sequence[Seat], seat: Seat | None) -> Offer | None:
    """The offer the player of ``seat`` sees at the end of ``match``; None when none is made
    to them (not a player, not a real-time match between people, no rematch and the offer
    past or refused)."""
    if seat is None or not _between_people(match, seats):
        return None
    rematch = Match.objects.filter(rematch_of=match).first()
    if rematch is None and _refusal(match, seats, timezone.now()):
        return None
    accepted = [s.player.username for s in _ordered(seats) if s.prefs.get(REMATCH)]
    declined = _declined(seats) if rematch is None else None
    return Offer(
        accepted,
        len(seats),
        bool(seat.prefs.get(REMATCH)),
        rematch,
        declined=declined.player.username if declined is not None else "",
        declined_mine=declined is not None and declined.pk == seat.pk,
    )


def accept(match_id: int, player) -> Match | None:
    """``player`` accepts the rematch of match ``match_id``; the rematch when there is one
    (started now that every player has accepted, or before). MoveRefused when no rematch is
    offered; Seat.DoesNotExist when ``player`` did not play the match."""
    with unit.change(match_id) as change:
        record = change.record
        match, seats = record.match, record.seats
        seat = record.seat_of(player)
        rematch = Match.objects.filter(rematch_of=match).first()
        if rematch is not None:
            return rematch
        refused = _refusal(match, seats, timezone.now()) or _declined_text(seats)
        if refused:
            raise MoveRefused(refused)
        seat.prefs = {**seat.prefs, REMATCH: True}
        if all(s.prefs.get(REMATCH) for s in seats):
            rematch = _start(match, seats)
    return rematch


def withdraw(match_id: int, player) -> Match | None:
    """``player`` no longer wants the rematch of match ``match_id``; the rematch if it has
    started already (then nothing changes). Seat.DoesNotExist when ``player`` did not play
    the match."""
    with unit.change(match_id) as change:
        record = change.record
        seat = record.seat_of(player)
        rematch = Match.objects.filter(rematch_of=record.match).first()
        if rematch is None and seat.prefs.get(REMATCH):
            seat.prefs = {k: v for k, v in seat.prefs.items() if k != REMATCH}
    return rematch


def decline(match_id: int, player) -> Match | None:
    """``player`` declines the rematch of match ``match_id``: the offer ends for every
    player (their acceptance, if they had given it, goes); the rematch if it has started
    already (then nothing changes). Declining again, or after another player did, changes
    nothing. MoveRefused when no rematch is offered (no longer); Seat.DoesNotExist when
    ``player`` did not play the match."""
    with unit.change(match_id) as change:
        record = change.record
        match, seats = record.match, record.seats
        seat = record.seat_of(player)
        rematch = Match.objects.filter(rematch_of=match).first()
        if rematch is not None:
            return rematch
        refused = _refusal(match, seats, timezone.now())
        if refused:
            raise MoveRefused(refused)
        if _declined(seats) is None:
            kept = {k: v for k, v in seat.prefs.items() if k != REMATCH}
            seat.prefs = {**kept, REMATCH_DECLINED: True}
    return None


def _start(match: Match, seats: Sequence[Seat]) -> Match:
    """The rematch of ``match``, started now (or the one that a change in between started:
    a match has at most one)."""
    speed = lobby.speed_of(match)
    assert speed is not None  # a real-time match (_between_people)
    try:
        with transaction.atomic():
            return lobby.start_realtime(
                [s.player for s in _ordered(seats)],
                game=match.game,
                speed=speed,
                rated=match.rated,
                options=match.options,
                rematch_of=match,
            )
    except IntegrityError:
        return Match.objects.get(rematch_of=match)


def _between_people(match: Match, seats: Sequence[Seat]) -> bool:
    """A finished real-time match between people, at one of the real-time paces, and no
    table of a tournament (its players are paired again by the tournament)."""
    return (
        match.kind == Match.Kind.MATCH
        and match.status == Match.Status.FINISHED
        and match.puzzle_id is None
        and match.tournament_id is None
        and match.realtime
        and lobby.speed_of(match) is not None
        and len(seats) >= 2
        and not any(s.bot for s in seats)
    )


def _within_window(match: Match, now: datetime) -> bool:
    return match.finished is not None and now - match.finished < WINDOW


def _refusal(match: Match, seats: Sequence[Seat], now: datetime) -> str:
    """Why no rematch of ``match`` may be accepted now ("": it may)."""
    if not _between_people(match, seats):
        return _("No rematch is offered for this match.")
    if not _within_window(match, now):
        return _("The offer of a rematch has ended: it stands for 10 minutes after the match.")
    if any(not s.player.is_active for s in seats) or blocks.among([s.player_id for s in seats]):
        return _("No rematch is offered for this match.")
    return ""


def _declined(seats: Sequence[Seat]) -> Seat | None:
    """The seat of the player who declined the rematch (None: nobody did)."""
    return next((s for s in _ordered(seats) if s.prefs.get(REMATCH_DECLINED)), None)


def _declined_text(seats: Sequence[Seat]) -> str:
    """Why the rematch may not be accepted as somebody declined it ("": nobody did)."""
    declined = _declined(seats)
    if declined is None:
        return ""
    return _("%(player)s declined the rematch.") % {"player": declined.player.username}


def _ordered(seats: Sequence[Seat]) -> list[Seat]:
    return sorted(seats, key=lambda s: s.index)
