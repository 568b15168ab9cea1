"""Invitation links: a match waiting for players (or a puzzle challenge) may have a link
(``InviteLink``, made with the match: ``lobby.create_match(link=True)``) that lets whoever
opens it take a free seat, signed in or as a guest.

The link works while the match waits for players and has a seat nobody holds (an invited
player holds theirs); it stops working for good once the seats are full, the match starts or
is called off. Its token is unguessable and shown only to the match's creator. Opening it
shows the invitation; only a POST takes the seat (``join``), by ``lobby.join``'s rules: a
player a seated player has blocked is refused, and so is a player who has played a
challenge's puzzle.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from games.models import InviteLink, Match, Seat
from games.services.features import blocks
from games.services.match import lobby


@dataclass
class Invitation:
    """What the invitation page shows: the match, its seats, and why the link no longer
    works (``gone``) or why the reader may not take a seat (``refusal``), each "" if not;
    ``seat``: the reader's own seat, if they have one."""

    match: Match
    seats: list[Seat]
    gone: str = ""
    refusal: str = ""
    seat: Seat | None = None

    @property
    def free(self) -> int:
        return self.match.players - len(self.seats)


def token_for(match: Match, player) -> str | None:
    """The token of the match's invitation link, for its creator while the link works;
    None for anybody else, or when there is none."""
    if not player.is_authenticated or match.created_by_id != player.pk:
        return None
    if match.status != Match.Status.WAITING:
        return None
    return InviteLink.objects.filter(match=match).values_list("token", flat=True).first()


def invitation(token: str, reader) -> Invitation:
    """The invitation of the link ``token`` as ``reader`` sees it (see ``Invitation``).
    InviteLink.DoesNotExist if there is no such link."""
    link = InviteLink.objects.select_related("match__created_by").get(token=token)
    match = link.match
    seats = list(match.seats.select_related("player").order_by("index"))
    shown = Invitation(match, seats)
    if reader.is_authenticated:
        shown.seat = next((s for s in seats if s.player_id == reader.pk), None)
    shown.gone = gone_reason(match, seats)
    if not shown.gone and shown.seat is None and reader.is_authenticated:
        shown.refusal = _refusal(match, seats, reader)
    return shown


def gone_reason(match: Match, seats: list[Seat]) -> str:
    """Why a link to ``match`` no longer works, "" while it does."""
    if match.status == Match.Status.CANCELLED:
        return _("The match was called off: this invitation no longer works.")
    if match.status != Match.Status.WAITING:
        return _("The match has started: this invitation no longer works.")
    if len(seats) >= match.players:
        return _("Every seat of the match is taken: this invitation no longer works.")
    return ""


def _refusal(match: Match, seats: list[Seat], reader) -> str:
    """Why ``reader`` may not take a seat by the link (as ``lobby.join`` would refuse)."""
    if blocks.blocking_any(reader.pk, [s.player_id for s in seats]):
        return _("You cannot join this match.")
    if (
        match.puzzle_id is not None
        and Seat.objects.filter(player=reader, match__puzzle_id=match.puzzle_id).exists()
    ):
        return _("You have played this puzzle before: choose another challenge.")
    return ""


def join(token: str, player) -> Match:
    """``player`` takes a free seat by the link ``token`` (``lobby.join``). MoveRefused if
    the link no longer works or the player may not; InviteLink.DoesNotExist if there is no
    such link."""
    match_id = InviteLink.objects.values_list("match_id", flat=True).get(token=token)
    return lobby.join(match_id, player, by_link=True)
