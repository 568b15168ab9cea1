"""Live streams of a match's changes: Redis pub/sub in, Server-Sent Events out.

After a change commits, ``services.match.versions`` publishes on a channel of each reader of
the match (a seat's player, or everybody else) the new version of what that reader sees, and
only when it changed: never a move or anything else the version is made of. Other
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
from django.conf import settings

from games.infra import metrics, presence

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


#: What the hub's clock puts in every stream's queue each ``HEARTBEAT`` seconds.
BEAT = object()
#: The streams the clock wakes before it lets the event loop run anything else: woken all
#: at once, 10,000 streams kept one process's loop busy for half a second or more, and a
#: move announced meanwhile reached its readers only after all of them (``bench.crowd``).
BEAT_SLICE = 250
#: Seconds the clock waits for Redis to take its presence notes.
NOTE_TIMEOUT = 5.0


class Hub:
    """One process's subscriptions: a single pub/sub connection to Redis, whose messages go
    to the queue of every stream that listens on their channel, and one clock for all its
    streams: every ``HEARTBEAT`` seconds it wakes each stream (``BEAT``: a comment to the
    browser; ``BEAT_SLICE`` at a time, letting the loop run between two slices) and notes
    at once, in one round trip, every player who has a stream open as looking at their
    match (``presence``)."""

    def __init__(self) -> None:
        self.listeners: dict[str, set[asyncio.Queue]] = defaultdict(set)
        #: The player and match of each stream opened by a player.
        self.looking: dict[asyncio.Queue, tuple[int, int]] = {}
        self.client: redis.asyncio.Redis | None = None
        self.pubsub: redis.asyncio.client.PubSub | None = None
        self.reader: asyncio.Task | None = None
        self.clock: asyncio.Task | None = None
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
            if self.clock is None or self.clock.done():
                self.clock = asyncio.create_task(self._beat())
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

    async def _beat(self) -> None:
        while self.listeners:
            await asyncio.sleep(HEARTBEAT)
            queues = [queue for queues in self.listeners.values() for queue in queues]
            for start in range(0, len(queues), BEAT_SLICE):
                for queue in queues[start : start + BEAT_SLICE]:
                    queue.put_nowait(BEAT)
                # the streams just woken write their beat, and the loop reads what came
                # meanwhile (an announcement), before the next slice
                await asyncio.sleep(0)
            await self.note(set(self.looking.values()))

    async def note(self, pairs: set[tuple[int, int]]) -> None:
        """Note each (player, match) of ``pairs`` as looking, in one round trip."""
        if not pairs or self.client is None:
            return
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for user_id, match_id in pairs:
                    pipe.set(presence.key(user_id, match_id), 1, ex=presence.LASTS)
                # a Redis that takes the connection and never answers must not stop the clock
                await asyncio.wait_for(pipe.execute(), NOTE_TIMEOUT)
        except (redis.RedisError, OSError, TimeoutError) as exc:
            logger.warning("presence not noted: %s", type(exc).__name__)

    @asynccontextmanager
    async def listen(self, name: str, looking: tuple[int, int] | None = None):
        """A queue of the messages sent on channel ``name`` (None: Redis went away; ``BEAT``:
        the clock), for a stream opened by a player (``looking``: their id and the match's)
        or anybody else."""
        pubsub = await self._connect()
        queue: asyncio.Queue = asyncio.Queue()
        first = not self.listeners[name]
        self.listeners[name].add(queue)
        if looking is not None:
            self.looking[queue] = looking
        try:
            if first:
                await pubsub.subscribe(name)
            yield queue
        finally:
            self.looking.pop(queue, None)
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
    ``read`` (a coroutine function) says the version its reader sees now, read once
    subscribed: at once an event if the page is behind, then each version announced, and a
    comment at each beat of the hub's clock, until ``MAX_AGE`` or until Redis goes away.
    While it lasts the player (``user_id``) is noted as looking at the match."""
    the_hub = hub()
    ends = time.monotonic() + MAX_AGE
    looking = (user_id, match_id) if user_id is not None else None
    metrics.LIVE_STREAMS.inc()
    try:
        async with the_hub.listen(name, looking) as queue:
            # Read once subscribed: a change committed before the subscription is seen here,
            # one committed after it is announced on the channel; none falls in between.
            current = await read()
            if looking is not None:
                await the_hub.note({looking})
            yield f"retry: {RETRY_MS}\n\n".encode()
            if current != shown:
                yield event(changed(current))
            while (message := await queue.get()) is not None:
                if message is BEAT:
                    if time.monotonic() >= ends:
                        return
                    yield b": still here\n\n"
                    continue
                metrics.LIVE_EVENTS.inc()
                yield event(json.loads(message))
    except (redis.RedisError, OSError) as exc:
        logger.warning("live stream ended: %s", type(exc).__name__)
    finally:
        metrics.LIVE_STREAMS.dec()
