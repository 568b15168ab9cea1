"""Live streams of a match's changes: Redis pub/sub in, Server-Sent Events out.

After a change commits, ``services.live`` publishes on a channel of each reader of the match
(a seat's player, or everybody else) the new version of what that reader sees, and only
when it changed: never a move or anything else the version is made of. Other
messages (``{"event": kind, ...}``) go to the pages the same way, as events of that kind. An open
game page holds one stream (``stream``), served by the ASGI server from the event loop, so
a page waiting for the others holds no worker; on each announced version the page fetches
its own view as a poll would.

Each server process has one Redis connection for all its streams (``Hub``). When Redis is
away nothing is published and no stream is served: pages poll.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import redis
import redis.asyncio
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from games import metrics, presence

logger = logging.getLogger(__name__)

#: Seconds between two comments on an idle stream (proxies close silent connections), which
#: also say that the page is still open (``presence``).
HEARTBEAT = presence.REFRESH
#: A stream ends after this many seconds and the browser opens it again (``RETRY_MS``
#: later), so a signed-out player's stream does not last and servers can be replaced.
MAX_AGE = 15 * 60
RETRY_MS = 2000
#: Seconds to wait for Redis before calling it unreachable.
TIMEOUT = 1.0


def channel(match_id: int, audience: str) -> str:
    """The channel of one reader of a match: ``audience`` is a seat's index, or "watch"."""
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:live:{match_id}:{audience}"


#: Once Redis has failed to take an announcement, this process makes none for this many
#: seconds: each try may wait out the timeout (a Redis that accepts and never answers), and
#: a move is not to wait for it again and again.
AWAY_SECONDS = 30.0
_away_until = 0.0


def changed(version: str) -> dict[str, str]:
    """The message that tells a page its match changed: its new version and nothing else."""
    return {"event": "changed", "version": version}


def publish(messages: dict[str, dict]) -> None:
    """Send each channel its message (``changed``, or another ``{"event": kind, ...}`` whose
    kind the page listens for); nothing, logged, when Redis is away: pages that stream go
    back to polling."""
    global _away_until
    if not messages or time.monotonic() < _away_until:
        return
    try:
        with presence.client().pipeline(transaction=False) as pipe:
            for name, message in messages.items():
                pipe.publish(name, json.dumps(message))
            pipe.execute()
    except redis.RedisError as exc:
        _away_until = time.monotonic() + AWAY_SECONDS
        logger.warning("changes not announced: %s", type(exc).__name__)


class Hub:
    """One process's subscriptions: a single pub/sub connection to Redis, whose messages go
    to the queue of every stream that listens on their channel."""

    def __init__(self) -> None:
        self.listeners: dict[str, set[asyncio.Queue]] = defaultdict(set)
        self.client: redis.asyncio.Redis | None = None
        self.pubsub = None
        self.reader: asyncio.Task | None = None
        self.ready = asyncio.Lock()

    async def _connect(self):
        async with self.ready:
            if self.reader is None or self.reader.done():
                self.client = redis.asyncio.Redis.from_url(
                    settings.REDIS_URL, socket_connect_timeout=TIMEOUT
                )
                self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                # A channel nobody listens on keeps the connection in pub/sub mode.
                await self.pubsub.subscribe(channel(0, "hub"))
                self.reader = asyncio.create_task(self._read(self.pubsub))
        return self.pubsub

    async def _read(self, pubsub) -> None:
        try:
            async for message in pubsub.listen():
                if message["type"] != "message":
                    continue
                name = message["channel"].decode()
                for queue in list(self.listeners.get(name, ())):
                    queue.put_nowait(message["data"].decode())
        except (redis.RedisError, OSError) as exc:
            logger.warning("live streams stopped: %s", type(exc).__name__)
        finally:
            self.reader = None
            for queues in self.listeners.values():
                for queue in queues:
                    queue.put_nowait(None)  # the stream ends: the page polls

    @asynccontextmanager
    async def listen(self, name: str):
        """A queue of the messages sent on channel ``name`` (None: Redis went away)."""
        pubsub = await self._connect()
        queue: asyncio.Queue = asyncio.Queue()
        first = not self.listeners[name]
        self.listeners[name].add(queue)
        try:
            if first:
                await pubsub.subscribe(name)
            yield queue
        finally:
            self.listeners[name].discard(queue)
            if not self.listeners[name]:
                del self.listeners[name]
                if self.reader is not None:
                    with suppress(redis.RedisError, OSError):
                        await pubsub.unsubscribe(name)


_hubs: dict[int, Hub] = {}


def hub() -> Hub:
    """This event loop's hub (one per loop: a server process has one loop)."""
    loop = asyncio.get_running_loop()
    key = id(loop)
    if key not in _hubs:
        _hubs[key] = Hub()
    return _hubs[key]


def available() -> bool:
    """Whether Redis answers, so that a stream can be served."""
    try:
        return bool(presence.client().ping())
    except redis.RedisError:
        return False


def event(message: dict) -> bytes:
    """A message as a Server-Sent Event: its kind, then the rest of it as JSON."""
    kind, data = message["event"], {k: v for k, v in message.items() if k != "event"}
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


async def stream(
    name: str, read, shown: str, *, user_id: int | None, match_id: int
) -> AsyncIterator[bytes]:
    """The Server-Sent Events of channel ``name`` for a page showing version ``shown``;
    ``read()`` (sync) says the version its reader sees now, read once subscribed: at once
    an event if the page is behind, then each version announced, and a comment every
    ``HEARTBEAT`` seconds, until ``MAX_AGE`` or until Redis goes away. While it lasts the
    player (``user_id``) is noted as looking at the match."""
    # A stream lasts minutes: the database connection its request used goes back now (the
    # request's own thread closes it), not when the stream ends.
    await sync_to_async(connections.close_all)()
    the_hub = hub()
    ends = time.monotonic() + MAX_AGE
    noted = 0.0
    metrics.LIVE_STREAMS.inc()
    try:
        async with the_hub.listen(name) as queue:
            # Read once subscribed: a change committed before the subscription is seen here,
            # one committed after it is announced on the channel; none falls in between.
            current = await sync_to_async(read)()
            await sync_to_async(connections.close_all)()
            yield f"retry: {RETRY_MS}\n\n".encode()
            if current != shown:
                yield event(changed(current))
            while (left := ends - time.monotonic()) > 0:
                if user_id is not None and time.monotonic() >= noted:
                    await presence.anote(the_hub.client, user_id, match_id)
                    noted = time.monotonic() + HEARTBEAT
                try:
                    message = await asyncio.wait_for(queue.get(), min(HEARTBEAT, left))
                except TimeoutError:
                    yield b": still here\n\n"
                    continue
                if message is None:
                    return
                metrics.LIVE_EVENTS.inc()
                yield event(json.loads(message))
    except (redis.RedisError, OSError) as exc:
        logger.warning("live stream ended: %s", type(exc).__name__)
    finally:
        metrics.LIVE_STREAMS.dec()
