"""Rate limits on logins, sign-ups, password-reset and address e-mails, chat messages and
reports, counted in the cache's Redis with the ``limits`` library (moving windows: each limit
counts the requests of the last day, hour, quarter of an hour or minute).

- Logins: ``LOGIN_FAILURES`` wrong passwords within ``LOGIN_COOLOFF`` for one account, or
  from one client address, lock it for ``LOGIN_COOLOFF``: every login there is refused, the
  right password included, and refused attempts cost no password hashing and count nothing.
  A successful login clears its account's count, never its address's (else an address could
  guess on without limit by logging into an account of its own between batches of guesses).
- Sign-ups: ``SIGNUPS`` per client address.
- Password-reset e-mails: ``RESETS_PER_ADDRESS`` per e-mail address and ``RESETS_PER_CLIENT``
  per client address.
- E-mails about an address to confirm (a change of address, a link sent again):
  ``ADDRESS_MAILS`` per player.
- Changes of password (which ask for the old one): ``PASSWORD_CHANGES`` per player.
- New matches, challenges and games against bots (each may invite, and so notify, other
  players, or keeps the workers busy with a bot's moves): ``NEW_GAMES``
  per player.
- Follows, unfollows, blocks and unblocks (a follow tells the player followed):
  ``SOCIAL_ACTIONS`` per player.
- Chat messages: ``CHAT_MESSAGES`` per player; reports to the staff: ``REPORTS`` per player
  (counted by the services that write them: ``games.services.features.chat_rooms``, ``reports``).

A refusal says when to try again. When Redis cannot be reached the limits let requests
through: nothing is counted and nothing is refused.

The counts live in the Redis of the cache (``CACHES["default"]["LOCATION"]``), under the
cache's key prefix followed by ``:limits``.
"""

import functools
import ipaddress
import logging
import math
import time
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from limits import RateLimitItem, RateLimitItemPerMinute, parse
from limits.errors import StorageError
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

logger = logging.getLogger(__name__)

LOGIN_FAILURES = 10
LOGIN_COOLOFF = timedelta(minutes=15)
SIGNUPS = "5/hour"
RESETS_PER_ADDRESS = "3/hour"
RESETS_PER_CLIENT = "10/hour"
PASSWORD_CHANGES = "10/hour"
ADDRESS_MAILS = "5/hour"
NEW_GAMES = "30/hour"
SOCIAL_ACTIONS = "60/hour"
CHAT_MESSAGES = "10/minute"
REPORTS = "10/day"

COOLOFF_MINUTES = int(LOGIN_COOLOFF.total_seconds() // 60)
#: Wrong passwords counted per account and per client address.
FAILURES = RateLimitItemPerMinute(LOGIN_FAILURES, COOLOFF_MINUTES)
#: A lockout: one per account or client address at a time, lasting the cool-off.
LOCKOUT = RateLimitItemPerMinute(1, COOLOFF_MINUTES)
#: Seconds Redis may take to connect or to answer before the limits let the request through.
REDIS_TIMEOUT = 1


@functools.cache
def _limiter(url: str, prefix: str) -> MovingWindowRateLimiter:
    storage = RedisStorage(
        url,
        key_prefix=f"{prefix}:limits",
        wrap_exceptions=True,
        socket_connect_timeout=REDIS_TIMEOUT,
        socket_timeout=REDIS_TIMEOUT,
    )
    return MovingWindowRateLimiter(storage)


def limiter() -> MovingWindowRateLimiter:
    """The limiter counting in the cache's Redis (looked up when used, so that it follows
    the settings)."""
    cache = settings.CACHES["default"]
    return _limiter(cache["LOCATION"], cache.get("KEY_PREFIX", ""))


@functools.cache
def parsed(rate: str) -> RateLimitItem:
    return parse(rate)


def login_name(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The account a login is for, whatever its capitals."""
    name = (credentials or {}).get("username") or request.POST.get("username")
    return name.strip().lower() if isinstance(name, str) else None


def client_ip(request: HttpRequest) -> str:
    """The client's address, as every limit counts it. Behind the TLS proxy
    (``BEHIND_TLS_PROXY``) it is the last address of X-Forwarded-For, the one the proxy
    added: those before it are whatever the client sent. Otherwise, or when the proxy added
    none, the address the request came from."""
    if settings.BEHIND_TLS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        try:
            return str(ipaddress.ip_address(forwarded.rpartition(",")[2].strip()))
        except ValueError:
            pass
    return request.META.get("REMOTE_ADDR", "")


def minutes(seconds: float) -> int:
    return max(1, math.ceil(seconds / 60))


def over_limit(
    request: HttpRequest, group: str, key: str | Callable[[str, HttpRequest], str], rate: str
) -> int | None:
    """Count this POST against ``rate`` (e.g. "5/hour") per ``key`` ("ip": the client's
    address, "user": the player, or a function of the group and the request); the minutes to
    wait if it is over (then it is not counted)."""
    if request.method != "POST":
        return None
    if callable(key):
        value = key(group, request)
    elif key == "ip":
        value = client_ip(request)
    elif key == "user":
        value = str(request.user.pk)
    else:
        raise ValueError(f"limits count per ip, user or a function, not {key!r}")
    return hit(group, value, rate)


def hit(group: str, value: str, rate: str) -> int | None:
    """Count one more of ``group`` for ``value`` (a player's id, an address) against
    ``rate``; the minutes to wait if it is over (then it is not counted), None if it is
    not or Redis cannot be reached."""
    item = parsed(rate)
    try:
        if limiter().hit(item, group, value):
            return None
        reset = limiter().get_window_stats(item, group, value).reset_time
    except StorageError:
        logger.warning("a rate limit could not be counted: Redis is unavailable")
        return None
    return minutes(reset - time.time())


def _login_scopes(request: HttpRequest, name: str | None) -> list[tuple[str, str]]:
    """What a login's failures count against: its account (when named) and its client."""
    scopes = [("address", client_ip(request))]
    if name:
        scopes.insert(0, ("account", name))
    return scopes


def login_wait(request: HttpRequest, name: str | None = None) -> float:
    """The seconds until a login for ``name`` (by default the posted one) may be tried from
    this client; 0 if it may now."""
    name = name or login_name(request)
    try:
        resets = [
            limiter().get_window_stats(LOCKOUT, "login-lockout", scope, value)
            for scope, value in _login_scopes(request, name)
        ]
    except StorageError:
        logger.warning("login lockouts could not be read: Redis is unavailable")
        return 0
    return max((s.reset_time - time.time() for s in resets if s.remaining == 0), default=0)


def login_failed(sender, credentials: dict, request: HttpRequest | None = None, **kwargs):
    """Count a wrong password (Django's ``user_login_failed``) against the account and the
    client address; the failure that fills a count locks it for the cool-off. A login refused
    because of a lockout counts nothing."""
    if request is None:
        return
    name = login_name(request, credentials)
    if login_wait(request, name):
        return
    try:
        for scope, value in _login_scopes(request, name):
            limiter().hit(FAILURES, "login-failures", scope, value)
            if limiter().get_window_stats(FAILURES, "login-failures", scope, value).remaining:
                continue
            limiter().hit(LOCKOUT, "login-lockout", scope, value)
            logger.warning("logins locked for %s minutes for an %s", COOLOFF_MINUTES, scope)
    except StorageError:
        logger.warning("login failures could not be counted: Redis is unavailable")


def logged_in(sender, request: HttpRequest | None, user, **kwargs):
    """Clear the failures counted for the account (Django's ``user_logged_in``), not those
    of the client's address."""
    if request is None:
        return
    name = login_name(request, {"username": user.get_username()})
    if name is None:  # no account's name: nothing was counted for it
        return
    try:
        limiter().clear(FAILURES, "login-failures", "account", name)
    except StorageError:
        logger.warning("login failures could not be cleared: Redis is unavailable")


class LoginLimits:
    """The first authentication backend: refuses, before any password is hashed, a login for
    an account or from a client address that is locked out."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, **kwargs):
        if request is not None and login_wait(request, login_name(request, {"username": username})):
            raise PermissionDenied
        return None


def locked_out(request: HttpRequest) -> HttpResponse:
    """The login page again, saying when logging in will be possible (HTTP 429)."""
    from django.contrib.auth.forms import AuthenticationForm

    left = login_wait(request) or LOGIN_COOLOFF.total_seconds()
    form = AuthenticationForm(request, data=request.POST or None)
    error = _(
        "Too many failed logins for this account or from your address. "
        "Try again in %(wait)s minutes."
    ) % {"wait": minutes(left)}
    return render(request, "registration/login.html", {"form": form, "error": error}, status=429)
