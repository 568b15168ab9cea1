"""What each reader of a match is told live: the version of their own page, when it changes.

Every change to a match (``unit``) works out once what each reader sees after it
(``versions``), compares it with what they saw before (kept with the match's state) and
records the readers whose page changed (``bus.ReadersChanged``); once the change has
committed, ``announce`` tells each of them the new version on their own channel
(``events.publish``), and a chat's readers that their room changed. A reader is a seat's
player, or everybody else ("watch", only while the match may be looked at by others:
``visibility.watchable``, the rule of the pages, which the watchers' page is made for with
the spectator's view). A version is what the page polls with (``matchview.version``): it
tells that something the reader may see changed, and nothing else, so a player ahead in free
pace moving says nothing to those behind, nor to the watchers.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from games.infra import events
from games.models import Match
from games.services.match import bus
from games.services.match.lockstep import in_step
from games.services.match.matchview import WATCH, rematch_offered, shown, version
from games.services.match.record import Record
from games.services.match.visibility import watchable


def audience_of(match: Match, seat) -> str | None:
    """The channel a reader follows: their seat's, else the watchers' (None: nothing of
    this match changes for them)."""
    if match.is_solo and not in_step(match):
        return None
    return WATCH if seat is None else str(seat.index)


def versions(record: Record) -> dict[str, str]:
    """The version of the page each reader of the match sees now, by audience (a human
    seat's index, and "watch" while others may look at the match)."""
    match = record.match
    if match.is_solo and not in_step(match):
        return {}
    seen = {str(seat.index): version(shown(record, seat)) for seat in record.seats if not seat.bot}
    if watchable(match):
        seen[WATCH] = version(shown(record, None))
    return seen


#: What tells a chat's readers that its room changed (never the words).
CHAT_NEWS = {"event": "chat"}


def announce(happened: Sequence[bus.Event]) -> None:
    """After commit: tell each reader whose page a change changed its new version, and the
    readers of a chat room that it changed."""
    news = {}
    for event in happened:
        if isinstance(event, bus.ReadersChanged):
            for audience, version in event.versions.items():
                news[events.channel(event.match.pk, audience)] = events.changed(version)
        elif isinstance(event, bus.ChatPosted):
            for audience in event.audiences:
                news[events.channel(event.match.pk, audience)] = CHAT_NEWS
    events.publish(news)


def channel_for(mv) -> str | None:
    """The channel the page ``mv`` was made for follows: None when nothing more changes for
    its reader (a solo game, a match over or called off, one others may no longer see). A
    player's page of a real-time match just over follows the answers to its rematch offer."""
    match = mv.match
    if match.status == Match.Status.CANCELLED:
        return None
    if match.status == Match.Status.FINISHED and not (
        mv.seat is not None and rematch_offered(match, mv.seats, timezone.now())
    ):
        return None
    audience = audience_of(match, mv.seat)
    if audience is None or (audience == WATCH and not watchable(match)):
        return None
    return events.channel(match.pk, audience)
