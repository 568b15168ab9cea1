"""Who has a match in front of them right now: a page of it open, following its changes.

An open game page says so every ``REFRESH`` seconds, by its live stream (``events``) or
by polling; the note lasts ``LASTS`` seconds, so a page closed without a word is forgotten
within that. A "your move" push waits for nobody who has the match open. The notes live in
Redis and nowhere else: when Redis is away nobody is known to be looking, and pushes go out.
"""

import logging
from functools import lru_cache

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

#: How often an open page says it is still open (a stream's heartbeat: each costs the server
#: CPU, 500 open streams beat 17 times a second), and how long each word of it lasts.
REFRESH = 30
LASTS = 75
#: Seconds to wait for Redis before calling it unreachable.
TIMEOUT = 0.5


def key(user_id: int, match_id: int) -> str:
    """The Redis key noting that ``user_id`` has match ``match_id`` open."""
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:open:{match_id}:{user_id}"


@lru_cache(maxsize=1)
def client() -> redis.Redis:
    """This process's Redis client for the live pages' notes and news (``games.infra.events``
    publishes with it), quick to give up when Redis does not answer."""
    return redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
    )


def note(user_id: int, match_id: int) -> None:
    """``user_id`` has match ``match_id`` open now (nothing if Redis is away)."""
    try:
        client().set(key(user_id, match_id), 1, ex=LASTS)
    except redis.RedisError as exc:
        logger.warning("presence not noted: %s", type(exc).__name__)


def looking(user_id: int, match_id: int) -> bool:
    """Whether ``user_id`` has match ``match_id`` open (False when Redis is away)."""
    try:
        return bool(client().exists(key(user_id, match_id)))
    except redis.RedisError as exc:
        logger.warning("presence not read: %s", type(exc).__name__)
        return False
