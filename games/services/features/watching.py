"""Watching: the matches under way that anybody may look at (the lobby's "Watch" list) and
a player's current games (their profile). Reads only.

Who may look at a match is ``visibility.watchable``'s to say (``visibility.under_way`` is the
same rule as a query, so a list never offers a match its page would refuse); what a
spectator sees of it is ``view_of(record, None)``: what every player may know, and in free
pace each display only up to the round every player has reached.
"""

from __future__ import annotations

from django.db.models import F, Q

from games.models import Match, Seat
from games.services.match import visibility
from games.services.match.kept import load_many
from games.services.match.matchview import MatchView, view_of

#: Matches the "Watch" list shows, the most recently started first.
WATCH_LIST = 30
#: A player's current games a profile lists.
CURRENT_GAMES = 20


def watch_list(user, limit: int | None = None) -> list[MatchView]:
    """The matches under way that ``user`` (a visitor too) may watch and does not play in,
    the most recently started first (``limit``, else ``WATCH_LIST`` of them), each as a
    spectator sees it: three queries whatever their number (the matches, their seats, their
    kept states)."""
    matches = visibility.under_way().order_by(F("started").desc(), F("id").desc())
    if user.is_authenticated:
        matches = matches.exclude(seats__player=user)
    chosen = list(matches[: limit or WATCH_LIST])
    records = load_many(chosen)
    return [view_of(records[match.pk], None) for match in chosen]


def current_games(player, viewer) -> list[Seat]:
    """The seats of ``player`` in their games under way (with the matches), the most
    recently started first, as ``viewer`` may know of them: all of them for the player
    themself; for anybody else the ones others may watch and those the viewer plays in."""
    seats = (
        # finished=None: the index of unfinished seats, not every seat the player ever had
        Seat.objects.filter(player=player, finished=None, match__status=Match.Status.ACTIVE)
        .exclude(state__in=[Seat.State.RESIGNED, Seat.State.DROPPED])
        .select_related("match__puzzle__tournament", "match__tournament")
        .order_by("-match__started", "-match_id")
    )
    if not (viewer.is_authenticated and viewer.pk == player.pk):
        shared = Q(match__in=visibility.under_way())
        if viewer.is_authenticated:
            shared |= Q(match__in=Seat.objects.filter(player=viewer).values("match_id"))
        seats = seats.filter(shared)
    return list(seats[:CURRENT_GAMES])
