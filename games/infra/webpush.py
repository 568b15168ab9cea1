"""Sending the pushes waiting for players' devices (Web Push with VAPID, RFC 8030/8291/8292).

``services.features.push_devices`` writes a ``PushMessage`` per push and device with the
change it tells of; a task sends it after commit, and the sweep finds those still due
(``due``): a lost task, a push to try again. ``send_many`` settles a batch:

- each push is claimed first (``send_at`` moved ``LEASE`` ahead, if it is still the one
  read), so that two workers never both send it; once its push service has taken it,
  ``send_at`` is cleared, so a device is never sent a push twice, however its other devices
  fare (the row is kept a day, for the hourly limit of "your move": ``prune``);
- "your move" waits for nobody who has the match open (``presence.looking``): it is
  dropped, as are "your move" and the alarm once the move is no longer owed, and an
  invitation once it is answered or called off;
- a push service answering 404 or 410 has forgotten the device: it is removed, with its
  pushes; any other failure is tried again after ``RETRY``, doubled with each attempt up to
  ``RETRY_MOST``, and given up after ``ATTEMPTS`` attempts;
- a device is removed too, unsent to, if its endpoint is not one the site takes
  (``push_devices.allowed``: one stored before, or by hand), or its host name has an address off
  the internet (the site's own network, this machine, a cloud's metadata service: ``public``;
  this machine is allowed where ``PUSH_LOCAL_ENDPOINTS`` says so). The name is resolved once,
  right before the push, and the push goes to an address so checked (``_post``: the
  connection is made to the address, with the host's name in TLS and in the request), so
  that a name answering otherwise the second time cannot turn it elsewhere; redirects are
  not followed;
- each request waits ``TIMEOUT`` seconds at most, a push service that did not answer is not
  tried again by this process for ``AWAY`` (its pushes stay due), and a task stops taking new
  pushes after ``BUDGET``: a push service that is down never holds a worker long.

Nothing is sent without VAPID keys (``services.features.push_devices.enabled``).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import time
from datetime import datetime, timedelta
from functools import lru_cache
from urllib.parse import SplitResult, urlsplit, urlunsplit

import requests
from django.conf import settings
from django.db.models import F
from django.utils import timezone
from py_vapid import Vapid
from pywebpush import WebPushException, webpush
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError

from games.infra import metrics, presence
from games.models import Match, PushMessage, PushSubscription, Seat
from games.services.features import push_devices

logger = logging.getLogger(__name__)

LEASE = timedelta(minutes=2)
RETRY = timedelta(minutes=1)
RETRY_MOST = timedelta(hours=1)
ATTEMPTS = 6
#: Seconds to wait for a push service to connect, and then to answer.
TIMEOUT = (3.0, 5.0)
#: Seconds a push service that did not answer is left alone by this process.
AWAY = 60.0
#: Seconds after which a task takes no further push (those left stay due for the sweep).
BUDGET = 25.0
#: How long a push service keeps a push for a device that is offline, at most.
TTL = timedelta(hours=12)
#: How long a sent push is kept.
KEPT = timedelta(days=1)

_away: dict[str, float] = {}


def due(now: datetime | None = None, limit: int = 10_000) -> list[int]:
    """The pushes due now (none while push notifications are off)."""
    if not push_devices.enabled():
        return []
    now = now or timezone.now()
    return list(
        PushMessage.objects.filter(send_at__lte=now)
        .order_by("send_at")
        .values_list("id", flat=True)[:limit]
    )


def prune(now: datetime | None = None) -> int:
    """Forget the pushes sent more than ``KEPT`` ago; how many."""
    before = (now or timezone.now()) - KEPT
    deleted, _kinds = PushMessage.objects.filter(send_at=None, created__lt=before).delete()
    return deleted


def send_many(ids: list[int], *, now: datetime | None = None) -> int:
    """Send those of these pushes that are due and still wanted; how many went out."""
    if not push_devices.enabled():
        return 0
    started = time.monotonic()
    sent = 0
    messages = (
        PushMessage.objects.select_related("device", "match")
        .filter(pk__in=ids, send_at__lte=now or timezone.now())
        .order_by("send_at", "pk")
    )
    for message in messages:
        if time.monotonic() - started > BUDGET:
            break
        if _away.get(_host(message.device.endpoint), 0.0) > time.monotonic():
            continue
        sent += _send_claimed(message, now or timezone.now())
    return sent


def reachable_again() -> None:
    """Try every push service at the next push, however recently one did not answer."""
    _away.clear()


def _host(endpoint: str) -> str:
    return urlsplit(endpoint).netloc


def _send_claimed(message: PushMessage, now: datetime) -> bool:
    """Claim the push, and send it if it is still wanted; whether it went out."""
    lease = now + LEASE
    claimed = PushMessage.objects.filter(pk=message.pk, send_at=message.send_at).update(
        send_at=lease, attempts=F("attempts") + 1
    )
    if not claimed:
        return False  # somebody else has it, or has sent it
    mine = PushMessage.objects.filter(pk=message.pk, send_at=lease)
    ttl = _still_wanted(message, now)
    if not ttl:
        mine.delete()
        metrics.PUSHES.labels(message.kind, "dropped").inc()
        return False
    device = message.device
    url = urlsplit(device.endpoint)
    if not push_devices.allowed(device.endpoint):
        return _refused(message, device, "not a push service's endpoint")
    try:
        addresses = _addresses(url)
    except OSError as failure:  # the name does not resolve (now)
        _away[_host(device.endpoint)] = time.monotonic() + AWAY
        _failed(message, mine, now, f"not resolved: {failure}")
        return False
    off = [address for address in addresses if not public(address)]
    if off or not addresses:
        return _refused(message, device, f"{url.hostname} resolves to {off}")
    try:
        _post(message, device, url, addresses, ttl)
    except WebPushException as failure:
        if failure.status_code in (404, 410):
            PushSubscription.objects.filter(pk=device.pk).delete()
            metrics.PUSHES.labels(message.kind, "gone").inc()
            return False
        _failed(message, mine, now, f"answered {failure.status_code}")
        return False
    except requests.RequestException as failure:
        _away[_host(device.endpoint)] = time.monotonic() + AWAY
        _failed(message, mine, now, type(failure).__name__)
        return False
    except Exception as failure:  # anything else (a key the push service cannot use)
        _failed(message, mine, now, repr(failure))
        return False
    mine.update(send_at=None)
    metrics.PUSHES.labels(message.kind, "sent").inc()
    return True


def _refused(message: PushMessage, device: PushSubscription, why: str) -> bool:
    """Remove a device the site does not push to, with its pushes (never sent)."""
    logger.warning("device %s removed unsent to: %s", device.pk, why)
    PushSubscription.objects.filter(pk=device.pk).delete()
    metrics.PUSHES.labels(message.kind, "refused").inc()
    return False


#: IPv6 addresses that stand for IPv4 ones (RFC 6052: NAT64, where DNS64 answers).
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether the site may post to ``address``: one on the internet (not private, loopback,
    link-local, reserved, multicast, unspecified, nor shared as 100.64.0.0/10), or this
    machine's own where ``PUSH_LOCAL_ENDPOINTS`` allows it. An IPv6 address that carries an
    IPv4 one (mapped, 6to4, NAT64) is judged by that."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in NAT64:
            address = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        elif (carried := address.ipv4_mapped or address.sixtofour) is not None:
            address = carried
        elif address.is_site_local:
            return False
    if address.is_loopback:
        return settings.PUSH_LOCAL_ENDPOINTS
    return address.is_global and not (
        address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


def _addresses(url: SplitResult) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """Each address the endpoint's host name has, once, in the resolver's order (this
    machine's preference); OSError if it has none now."""
    infos = socket.getaddrinfo(url.hostname, _port(url), type=socket.SOCK_STREAM)
    found = [ipaddress.ip_address(info[4][0]) for info in infos]
    return list(dict.fromkeys(found))


def _port(url: SplitResult) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _post(
    message: PushMessage,
    device: PushSubscription,
    url: SplitResult,
    addresses: list[ipaddress.IPv4Address | ipaddress.IPv6Address],
    ttl: int,
) -> None:
    """Post the push to the endpoint at the first of ``addresses`` that takes a connection
    (the next is tried only if none could be made: nothing was sent), with the endpoint's
    host name in Host, in the VAPID audience and in TLS (its certificate must be the name's).
    WebPushException if the push service did not take it; requests' errors if it did not
    answer."""
    name = url.hostname
    assert name is not None  # push_devices.allowed takes no endpoint without a host
    for address in addresses:
        host = f"[{address}]" if address.version == 6 else str(address)
        pinned = urlunsplit((url.scheme, f"{host}:{_port(url)}", url.path, url.query, ""))
        with requests.Session() as session:
            session.max_redirects = 0  # a push service's answer is final
            session.mount("https://", _Named(name))
            try:
                webpush(
                    {"endpoint": pinned, "keys": {"p256dh": device.p256dh, "auth": device.auth}},
                    data=json.dumps(message.payload),
                    vapid_private_key=_vapid(settings.VAPID_PRIVATE_KEY),
                    vapid_claims={
                        "sub": settings.VAPID_SUBJECT,
                        "aud": f"{url.scheme}://{url.netloc}",
                    },
                    timeout=TIMEOUT,
                    ttl=ttl,
                    headers={
                        "Host": url.netloc,
                        "Urgency": "high" if message.kind == push_devices.ALARM else "normal",
                    },
                    requests_session=session,
                )
                return
            except requests.ConnectionError as failure:
                cause = failure.args[0] if failure.args else None
                unconnected = isinstance(getattr(cause, "reason", None), NewConnectionError)
                if not unconnected or address == addresses[-1]:
                    raise


class _Named(HTTPAdapter):
    """https to an address given by number, for a host of this name: its name is the one
    sent in TLS (SNI) and the one its certificate must bear."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__()

    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):
        super().init_poolmanager(
            connections, maxsize, block, server_hostname=self.name, **pool_kwargs
        )


def _failed(message: PushMessage, mine, now: datetime, why: str) -> None:
    """Try the push again later, or give it up after ``ATTEMPTS`` attempts."""
    metrics.PUSHES.labels(message.kind, "failed").inc()
    attempts = message.attempts + 1
    if attempts >= ATTEMPTS:
        logger.warning("push %s given up after %d attempts: %s", message.pk, attempts, why)
        mine.delete()
        return
    logger.info("push %s failed (%s): tried again later", message.pk, why)
    mine.update(send_at=now + min(RETRY * 2 ** (attempts - 1), RETRY_MOST))


def _still_wanted(message: PushMessage, now: datetime) -> int:
    """Seconds the push service should keep the push for an offline device; 0 if it should
    not go out at all any more."""
    match, player_id = message.match, message.device.player_id
    if match is None:
        return int(TTL.total_seconds())
    if message.kind in (push_devices.MOVE, push_devices.ALARM):
        seat = Seat.objects.filter(
            match=match,
            player_id=player_id,
            deadline__gt=now,
            match__status=Match.Status.ACTIVE,
        ).first()
        if (
            seat is None
            or seat.deadline is None  # never: its deadline is later than now
            or (message.kind == push_devices.ALARM and not seat.reminded)
        ):
            return 0  # the move is made (an alarm of a later move: its own comes)
        if message.kind == push_devices.MOVE and presence.looking(player_id, match.pk):
            return 0
        return max(1, int(min(seat.deadline - now, TTL).total_seconds()))
    if message.kind == push_devices.INVITE:
        invited = Seat.objects.filter(
            match=match,
            player_id=player_id,
            state=Seat.State.INVITED,
            match__status=Match.Status.WAITING,
        )
        if not invited.exists():
            return 0
    return int(TTL.total_seconds())


@lru_cache(maxsize=2)
def _vapid(private_key: str) -> Vapid:
    return Vapid.from_string(private_key=private_key)
