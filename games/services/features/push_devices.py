"""Push notifications: a player's devices, and the pushes written for them.

A device is a browser that subscribed to the site's pushes (``PushSubscription``: its push
service's endpoint and its keys, RFC 8030/8291), added from Settings and removed there, and
by the sending when its push service says it is gone. A player has at most
``MOST_DEVICES``; an endpoint given again is the same device, brought up to date. The site
posts to what a subscription names, so it takes only the push services of browsers
(``PUSH_SERVICES``, at https), never any address a page sends it (``allowed``).

A push is written with the change it tells of (``Changes.flush``, in its transaction), one
row per device (``PushMessage``), so that each device gets it once however the others fare;
``games.infra.webpush`` sends the rows after commit, and the sweep sends any a lost task missed.
It is written in its reader's language and says only what its reader may know: the words
of their own notification, the match's name and address. Which pushes:

- "your move" (``MOVE``) when a move becomes the player's, at most one per match within
  ``MOVE_EVERY`` (and none while the player has the match open: that is seen when it is
  sent);
- the 80% alarm (``ALARM``), always;
- invitations to a match or a challenge (``INVITE``), and results (``RESULT``);
- of a tournament (opening its page, not a match's): its start (``MOVE``: the games are
  open, or a live one's first game begins), the results (``RESULT``), and a game about
  to close unfinished (``ALARM``);

each only to a player who has that kind switched on (``Profile.push_<kind>``).
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
from collections import defaultdict
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from games.infra import queue
from games.models import Match, Profile, PushMessage, PushSubscription, Tournament
from games.models.pushes import ENDPOINT_LENGTH

MOVE, ALARM, INVITE, RESULT = "move", "alarm", "invite", "result"
KINDS = (MOVE, ALARM, INVITE, RESULT)
#: At most one "your move" push per player and match within this (the alarm always goes).
MOVE_EVERY = timedelta(hours=1)
#: Devices per player.
MOST_DEVICES = 10
#: Pushes per task: one message to the broker for each batch.
BATCH = 100

#: The title of each kind of push, in English; each goes out in its reader's language.
TITLES = {
    MOVE: gettext_noop("Your move"),
    ALARM: gettext_noop("Time is running out"),
    INVITE: gettext_noop("Invitation"),
    RESULT: gettext_noop("Match over"),
}


def enabled() -> bool:
    """Whether the site sends push notifications: it has VAPID keys (settings)."""
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def write(pending: list[tuple[int, Match | Tournament, str, str, dict[str, Any]]]) -> None:
    """Write the pushes of a change, each (player id, match or tournament, kind, text,
    params): ``text`` the English words of the player's notification (marked with
    ``gettext_noop``), written in the player's language with ``params``; a click opens the
    match's page, or the tournament's. Their sending is asked for after commit."""
    if not pending or not enabled():
        return
    devices: dict[int, list[int]] = defaultdict(list)
    players = {player_id for player_id, *_rest in pending}
    for pk, player_id in PushSubscription.objects.filter(player_id__in=players).values_list(
        "pk", "player_id"
    ):
        devices[player_id].append(pk)
    if not devices:
        return
    profiles = {p.player_id: p for p in Profile.objects.filter(player_id__in=list(devices))}
    now = timezone.now()
    recent = _recent_moves(pending, devices, now)
    rows = []
    for player_id, about, kind, text, params in pending:
        profile = profiles.get(player_id)
        if player_id not in devices or (profile and not getattr(profile, f"push_{kind}")):
            continue
        match = about if isinstance(about, Match) else None
        if kind == MOVE and match is not None and (player_id, match.pk) in recent:
            continue
        language = (profile.writing_language if profile else "") or settings.LANGUAGE_CODE
        payload = _payload(about, kind, text, params, language)
        rows += [
            PushMessage(device_id=device, match=match, kind=kind, payload=payload, send_at=now)
            for device in devices[player_id]
        ]
    ids = [message.pk for message in PushMessage.objects.bulk_create(rows)]
    for start in range(0, len(ids), BATCH):
        queue.send("games.tasks.send_pushes", ids[start : start + BATCH])


def _recent_moves(pending, devices, now) -> set[tuple[int, int]]:
    """(player id, match id) of the "your move" pushes written for the pending ones' players
    and matches within ``MOVE_EVERY`` (sent, or still to send)."""
    matches = {
        about.pk
        for _player, about, kind, *_rest in pending
        if kind == MOVE and isinstance(about, Match)
    }
    if not matches:
        return set()
    return set(
        PushMessage.objects.filter(
            kind=MOVE,
            created__gt=now - MOVE_EVERY,
            match_id__in=matches,
            device__player_id__in=list(devices),
        ).values_list("device__player_id", "match_id")
    )


def _payload(about: Match | Tournament, kind: str, text: str, params: dict, language: str) -> dict:
    """What the device shows, in ``language``: the kind's title, the notification's words,
    and the address of the match (or tournament), opened by a click (``tag``: a newer push of
    the same kind about the same match or tournament replaces this one on the device)."""
    with translation.override(language):
        body = gettext(text)
        if params:
            body %= {name: str(value) for name, value in params.items()}
        return {
            "title": gettext(TITLES[kind]),
            "body": body,
            "url": settings.SITE_URL + about.get_absolute_url(),
            "tag": f"{kind}-{about.pk}" if isinstance(about, Match) else f"{kind}-t{about.pk}",
        }


# ------------------------------------------------------------------ devices


class DeviceRefused(ValueError):
    """A subscription the site does not take (the message says why, in the page's language)."""


#: The longest subscription (JSON) taken, and the longest endpoint.
MOST_JSON = 4000
MOST_ENDPOINT = ENDPOINT_LENGTH


def subscribe(player: User, subscription: str, user_agent: str = "") -> PushSubscription:
    """Add the browser whose ``PushSubscription`` JSON this is (endpoint, keys.p256dh,
    keys.auth) to ``player``'s devices; one added before, by anybody, becomes the player's
    with its keys brought up to date. DeviceRefused if the JSON is not a subscription the
    site can push to, or the player has ``MOST_DEVICES`` already."""
    endpoint, p256dh, auth = _read(subscription)
    values = {"player": player, "p256dh": p256dh, "auth": auth, "user_agent": user_agent[:300]}
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=player.pk).first()  # one change at a time
        mine = PushSubscription.objects.filter(player=player).exclude(endpoint=endpoint)
        if mine.count() >= MOST_DEVICES:
            raise DeviceRefused(
                gettext("You have %(count)s devices already: remove one first.")
                % {"count": MOST_DEVICES}
            )
        device, made = PushSubscription.objects.get_or_create(endpoint=endpoint, defaults=values)
        if not made:
            if device.player_id != player.pk:
                values["created"] = timezone.now()  # added anew, by another player
            for name, value in values.items():
                setattr(device, name, value)
            device.save()
    return device


def remove(player: User, device_id: int) -> bool:
    """Remove one of ``player``'s devices (its pushes waiting go with it); False if the
    player has no such device."""
    deleted, _kinds = PushSubscription.objects.filter(pk=device_id, player=player).delete()
    return bool(deleted)


def _read(subscription: str) -> tuple[str, str, str]:
    """The endpoint and keys of a subscription's JSON, each checked; DeviceRefused if any
    is not what a browser sends."""
    refused = DeviceRefused(gettext("This is not a subscription the site can push to."))
    if len(subscription) > MOST_JSON:
        raise refused
    try:
        data = json.loads(subscription)
    except ValueError:
        raise refused from None
    keys = data.get("keys") if isinstance(data, dict) else None
    endpoint = data.get("endpoint") if isinstance(data, dict) else None
    if not isinstance(keys, dict) or not isinstance(endpoint, str):
        raise refused
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not (isinstance(p256dh, str) and isinstance(auth, str)):
        raise refused
    refusal = _refusal(endpoint)
    if refusal:
        raise DeviceRefused(refusal)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _decoded(p256dh))
        if len(_decoded(auth)) != 16:
            raise ValueError("not 16 bytes")
    except ValueError:
        raise refused from None
    return endpoint, p256dh, auth


def _decoded(value: str) -> bytes:
    """Bytes from base64url (padded or not); ValueError if it is not that."""
    if len(value) > 200 or not BASE64URL.fullmatch(value):
        raise ValueError("not base64url")
    value = value.rstrip("=")
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")


def allowed(endpoint: str) -> bool:
    """Whether the site pushes to ``endpoint``: https at a push service of
    ``PUSH_SERVICES``, or http on this machine where ``PUSH_LOCAL_ENDPOINTS`` allows it. (The
    addresses its host name has are checked when a push is sent: ``games.infra.webpush``.)"""
    return not _refusal(endpoint)


def known_service(host: str) -> bool:
    """Whether ``host`` is a push service the site sends to: one of ``PUSH_SERVICES`` or a
    host under one (``wns2-par02p.notify.windows.com`` under ``notify.windows.com``)."""
    host = host.lower()
    return any(
        host == domain or host.endswith("." + domain)
        for domain in (service.lower() for service in settings.PUSH_SERVICES)
    )


def _refusal(endpoint: str) -> str:
    """Why the site does not push to ``endpoint``, in the page's language; "" if it does."""
    if not _reachable(endpoint):
        return gettext("The push service's address must be an https:// address.")
    url = urlsplit(endpoint)
    if url.scheme == "https" and not known_service(url.hostname or ""):
        return gettext(
            "The site sends push notifications only through the push services of browsers, "
            "not through %(host)s."
        ) % {"host": url.hostname}
    return ""


def _reachable(endpoint: str) -> bool:
    """Whether ``endpoint`` is an address to push to: https on a named host (a push service;
    never an address of the site's own network given by number), or http on this machine
    where ``PUSH_LOCAL_ENDPOINTS`` allows it (development, the tests' push service)."""
    if len(endpoint) > MOST_ENDPOINT or not endpoint.isascii() or not endpoint.isprintable():
        return False
    try:
        url = urlsplit(endpoint)
        host, _port = url.hostname, url.port
    except ValueError:
        return False
    if not host or " " in endpoint or url.username is not None or url.password is not None:
        return False
    if url.scheme == "http":
        return settings.PUSH_LOCAL_ENDPOINTS and _local(host)
    top = host.rsplit(".", 1)[-1]
    return url.scheme == "https" and "." in host and top.isalpha()  # not 10.0.0.1, 0x7f.1


def _local(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
