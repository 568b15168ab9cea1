"""The door of the live streams: ``/game/<id>/live/`` answered from the event loop.

A game page's stream lasts minutes and mostly waits, so it is served by plain ASGI code
(``app``), not by Django's request handler, which keeps a thread for each request as long as
its answer lasts. The request's few synchronous steps (its session and player, the match
as that player sees it, the version they see) run in the event loop's shared pool of
threads and give their database connection back at once; the stream itself
(``events.stream``) holds a queue, never a thread.

Limits: a client (a signed-in player, else an address as ``limits.client_ip`` gives it)
has at most ``LIVE_STREAMS_PER_CLIENT`` streams open in a process, more are answered 204
(EventSource stops quietly and the page polls); a process holds at most
``LIVE_STREAMS_MOST`` (and fewer than its limit of open files), more are answered 503 with
Retry-After.
"""

from __future__ import annotations

import asyncio
import io
import logging
import resource
from collections import Counter
from collections.abc import Sequence
from contextlib import suppress
from importlib import import_module

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import Http404
from django.urls import Resolver404, resolve

from games import services
from games.infra import events, metrics
from games.infra.limits import client_ip
from games.models import Match
from games.services.match import versions
from games.services.match.matchview import MatchView
from games.services.match.visibility import Hidden

logger = logging.getLogger(__name__)

#: How long a client refused by the process's cap is asked to wait before trying again.
RETRY_AFTER = 30
HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"max-age=0, no-cache, no-store, must-revalidate, private"),
    (b"x-accel-buffering", b"no"),  # nginx: pass each event on at once
    (b"x-content-type-options", b"nosniff"),
]

#: This process's open streams (and those being opened), in all and by client.
counted: Counter[str] = Counter()


#: Open files kept for everything but streams (the database, Redis, pages, static files).
SPARE_FILES = 200


def most() -> int:
    """The most streams this process holds: ``LIVE_STREAMS_MOST``, and fewer than its limit
    of open files (one for each stream), so that past it a stream is refused, not every
    connection left unanswered."""
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if files == resource.RLIM_INFINITY:
        return settings.LIVE_STREAMS_MOST
    return max(1, min(settings.LIVE_STREAMS_MOST, files - SPARE_FILES))


def match_of(path: str) -> int | None:
    """The match whose stream ``path`` asks for (None: not a stream's path)."""
    try:
        found = resolve(path)
    except Resolver404:
        return None
    return found.kwargs["match_id"] if found.url_name == "live" else None


def channel_of(user, match_id: int) -> tuple[MatchView, str | None]:
    """Match ``match_id`` as ``user`` sees it and the channel its page follows (None:
    nothing more changes for them); Http404 when they may not see it."""
    try:
        mv = services.view_match(match_id, user)
    except (Match.DoesNotExist, Hidden):
        raise Http404("No game of yours has this number.") from None
    return mv, versions.channel_for(mv)


def opening(request: ASGIRequest, match_id: int):
    """In a pool thread: the request's player, the match as they see it and its channel,
    and whether Redis answers."""
    try:
        request.get_host()  # DisallowedHost unless ALLOWED_HOSTS has it
        engine = import_module(settings.SESSION_ENGINE)
        request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
        user = auth.get_user(request)
        mv, name = channel_of(user, match_id)
        return user, mv, name, name is not None and events.available()
    finally:
        connections.close_all()


def seen_by(match_id: int, user) -> str:
    """In a pool thread: the version of the page ``user`` sees of match ``match_id``."""
    try:
        return services.version(services.view_match(match_id, user))
    finally:
        connections.close_all()


async def answer(send, status: int, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """An answer with no body."""
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": b""})


async def app(scope, receive, send, match_id: int) -> None:
    """The stream of match ``match_id``'s page: 404 to whoever may not see the match, 204
    when nothing more can change for its reader or Redis is away (the page polls)."""
    if counted["all"] >= most():
        metrics.LIVE_REFUSED.labels("full").inc()
        await answer(send, 503, [(b"retry-after", str(RETRY_AFTER).encode())])
        return
    counted["all"] += 1
    try:
        request = ASGIRequest(scope, io.BytesIO())
        try:
            user, mv, name, up = await sync_to_async(opening, thread_sensitive=False)(
                request, match_id
            )
        except DisallowedHost:
            await answer(send, 400)
            return
        except Http404:
            await answer(send, 404)
            return
        if not up:
            await answer(send, 204)
            return
        client = f"player:{user.pk}" if user.is_authenticated else f"at:{client_ip(request)}"
        if counted[client] >= settings.LIVE_STREAMS_PER_CLIENT:
            metrics.LIVE_REFUSED.labels("client").inc()
            await answer(send, 204)
            return
        counted[client] += 1
        try:
            await pour(
                send,
                receive,
                events.stream(
                    name,
                    lambda: sync_to_async(seen_by, thread_sensitive=False)(match_id, user),
                    request.GET.get("version", "")[:64],
                    user_id=mv.seat.player_id if mv.seat is not None else None,
                    match_id=match_id,
                ),
            )
        finally:
            counted[client] -= 1
            if not counted[client]:
                del counted[client]
    finally:
        counted["all"] -= 1


async def pour(send, receive, chunks) -> None:
    """Send ``chunks`` as the body of a 200 answer until they end or the client leaves."""
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})

    async def poured() -> None:
        async for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})

    async def left() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    pouring, leaving = asyncio.ensure_future(poured()), asyncio.ensure_future(left())
    try:
        await asyncio.wait({pouring, leaving}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone = leaving.done()
        pouring.cancel()
        leaving.cancel()
        ended = await asyncio.gather(pouring, leaving, return_exceptions=True)
        await chunks.aclose()
    if isinstance(ended[0], Exception):
        logger.warning("live stream failed: %r", ended[0])
    if not gone:
        with suppress(OSError):
            await send({"type": "http.response.body", "body": b""})
