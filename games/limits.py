"""Rate limits on logins, sign-ups, password-reset and address e-mails, counted in the
cache (Redis).

- Logins (django-axes): after ``LOGIN_FAILURES`` wrong passwords for one account, or from one
  client address, further logins there are refused for ``LOGIN_COOLOFF``, the right password
  included; refused attempts cost no password hashing. A successful login clears its
  account's count, never its address's (else an address could guess on without limit by
  logging into an account of its own between batches of guesses).
- Sign-ups: ``SIGNUPS`` per client address.
- Password-reset e-mails: ``RESETS_PER_ADDRESS`` per e-mail address and ``RESETS_PER_CLIENT``
  per client address.
- E-mails about an address to confirm (a change of address, a link sent again):
  ``ADDRESS_MAILS`` per player.
- Changes of password (which ask for the old one): ``PASSWORD_CHANGES`` per player.
- New matches, challenges and games against bots (each may invite, and so notify, other
  players, or keeps the workers busy with a bot's moves): ``NEW_GAMES``
  per player.

A refusal says when to try again. When Redis cannot be reached the limits let requests
through: the cache ignores its errors (django-redis), django-ratelimit fails open, and the
login handler below counts nothing instead of failing.
"""

import ipaddress
import logging
import math
from datetime import timedelta

from axes.handlers.cache import AxesCacheHandler
from axes.helpers import (
    get_cache,
    get_client_cache_keys,
    make_cache_key_list,
)
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django_ratelimit.core import get_usage
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

LOGIN_FAILURES = 10
LOGIN_COOLOFF = timedelta(minutes=15)
SIGNUPS = "5/h"
RESETS_PER_ADDRESS = "3/h"
RESETS_PER_CLIENT = "10/h"
PASSWORD_CHANGES = "10/h"
ADDRESS_MAILS = "5/h"
NEW_GAMES = "30/h"


def login_name(request: HttpRequest, credentials: dict | None) -> str | None:
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


def over_limit(request: HttpRequest, group: str, key: str, rate: str) -> int | None:
    """Count this request against ``rate`` per ``key``; the minutes to wait if it is over."""
    usage = get_usage(request, group=group, key=key, rate=rate, method="POST", increment=True)
    if usage is None or not usage["should_limit"]:
        return None
    return minutes(usage["time_left"])


class LoginLimits(AxesCacheHandler):
    """Axes's cache handler, letting logins through when the cache does not answer."""

    def __init__(self) -> None:
        pass  # the cache is looked up when used, so that it follows the settings

    @property
    def cache(self):
        return get_cache()

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        try:
            super().user_login_failed(sender, credentials, request, **kwargs)
        except (TypeError, RedisError, ConnectionInterrupted):
            # The cache answered None, or not at all: nothing was counted.
            logger.warning("login failures could not be counted: the cache is unavailable")

    def user_logged_in(self, sender, request, user, **kwargs):
        """Clear the failures counted for the account, not those of the client's address."""
        name = login_name(request, {"username": user.get_username()})
        try:
            self.cache.delete_many(make_cache_key_list([{"username": name}]))
        except (RedisError, ConnectionInterrupted):
            logger.warning("login failures could not be cleared: the cache is unavailable")


def locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """The login page again, saying when logging in will be possible (HTTP 429)."""
    from django.contrib.auth.forms import AuthenticationForm

    left = LOGIN_COOLOFF.total_seconds()
    try:
        ttls = [cache.ttl(key) for key in get_client_cache_keys(request, credentials)]
        left = max((t for t in ttls if isinstance(t, int) and t > 0), default=left)
    except Exception:  # the cache is away: say the longest wait
        pass
    form = AuthenticationForm(request, data=request.POST or None)
    error = _(
        "Too many failed logins for this account or from your address. "
        "Try again in %(wait)s minutes."
    ) % {"wait": minutes(left)}
    return render(request, "registration/login.html", {"form": form, "error": error}, status=429)
