"""What each reader of a match is told live: the version of their own page, when it changes.

Every change to a match starts from a record noted as read (``changes.track``): the
versions each reader sees then are worked out, and once the change has committed, again;
each reader whose version changed is told the new one on their own channel
(``events.publish``). A reader is a seat's player, or everybody else ("watch", only while
the match may be looked at by others: ``visibility.watchable``, the rule of the pages,
which the watchers' page is made for with the spectator's view). A version is what the
page polls with (``matchview.version``): it tells that something the reader may see
changed, and nothing else, so a player ahead in free pace moving says nothing to those
behind, nor to the watchers.
"""

from __future__ import annotations

from django.db import transaction

from games import events
from games.models import Match
from games.services.matchview import shown, version
from games.services.record import Record
from games.visibility import watchable

#: The audience of everybody who is not seated in the match.
WATCH = "watch"


def audience_of(match: Match, seat) -> str | None:
    """The channel a reader follows: their seat's, else the watchers' (None: nothing of
    this match changes for them)."""
    if match.is_solo:
        return None
    return WATCH if seat is None else str(seat.index)


def versions(record: Record) -> dict[str, str]:
    """The version of the page each reader of the match sees now, by channel."""
    match = record.match
    if match.is_solo:
        return {}
    seen = {
        events.channel(match.pk, str(seat.index)): version(shown(record, seat))
        for seat in record.seats
        if not seat.bot
    }
    if watchable(match):
        seen[events.channel(match.pk, WATCH)] = version(shown(record, None))
    return seen


def follow(record: Record) -> None:
    """The record is about to be changed: once the change commits, tell each reader whose
    page it changed its new version."""
    before = versions(record)

    def announce() -> None:
        after = versions(record)
        news = {name: events.changed(v) for name, v in after.items() if before.get(name) != v}
        events.publish(news)

    transaction.on_commit(announce)


def channel_for(mv) -> str | None:
    """The channel the page ``mv`` was made for follows: None when nothing more changes for
    its reader (a solo game, a match over or called off, one others may no longer see)."""
    match = mv.match
    if match.status in (Match.Status.FINISHED, Match.Status.CANCELLED):
        return None
    audience = audience_of(match, mv.seat)
    if audience is None or (audience == WATCH and not watchable(match)):
        return None
    return events.channel(match.pk, audience)
