"""How a match's page follows its match: polled, fetched again on the news of its stream,
or fetched again keeping the turn being made (static/js/live.js reads what is set here)."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from games.http import SiteRequest
from games.models import Match
from games.services import MatchView
from games.services.features import live_duplicate
from games.services.match import lockstep, versions, visibility
from games.services.match.play import owes_move


def followed(request: SiteRequest, mv: MatchView) -> dict:
    """Whether the reader owes a move (``owes``: by a deadline, or in a match without any,
    ``turn``; the page is fetched on the others' news and when time is up, keeping the turn
    being made) or follows the others (``polling``: a player owing nothing, a spectator).
    A game held in step with others on its deal (a live duplicate) is followed as a match,
    with its tournament's panel."""
    match, seat = mv.match, mv.seat
    in_step = lockstep.in_step(match)
    owing = False
    if seat is not None and (not match.is_solo or in_step):
        owing = mv.owes if in_step else owes_move(seat)
    active = match.status == Match.Status.ACTIVE
    context = {
        "owes": owing and active,
        "polling": active
        and (
            (seat is not None and (not match.is_solo or in_step) and not owing)
            or (not mv.is_player and visibility.watchable(match))
        ),
    }
    if in_step and active:  # a game over shows no leaders: they go on moving without it
        context.update(live_duplicate.panel(match, request.user, waiting=not owing, mine=seat))
    return context


def follow(mv: MatchView, context: dict) -> dict:
    """A page follows its match live where the server streams (``live``: the stream's
    address) whenever anything of the match may still change for its reader: the chat
    listens there. A page that polls for the others' moves (``polling``) is fetched again
    on each new version (``refresh``), and polls while the stream is away; one where the
    player owes a move (``owes``) is fetched too, but keeps the turn being made while the
    move owed stays the same (static/js/live.js)."""
    # LIVE_STREAMS: a process of nmbr9site.asgi answers the streams' addresses
    if settings.LIVE_STREAMS and versions.channel_for(mv) is not None:
        context["live"] = reverse("live", args=[mv.match.pk])
        context["refresh"] = context["polling"]
    return context
