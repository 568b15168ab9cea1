"""Notifications in words: kept as their English message and its parameters, said in the
reader's language when read.

A notification keeps the English message (marked with ``gettext_noop``) and its parameters
as JSON (``stored``): a match by its id, a player by their id (``Player``), a tournament by
its id and its name then, a time (``Instant``) as it is, anything else as it is said.
Reading them (``say_all``) puts each in the active language, naming a player by their
account's current name as the site shows names (a closed account as closed accounts are), a
tournament by its name and a time as pages write times; one kept from before had its words
written once, and keeps them. A notification about a match links to
it; one about a tournament and no match links to the tournament (``link``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from games.models import Match, Notification, Tournament
from games.names import shown
from games.templatetags.games_extras import utc_text, when


@dataclass(frozen=True, slots=True)
class Player:
    """A player named in a notification: ``pk``, and ``name`` as it is now (said at once by
    words written when the notification is, such as a push's)."""

    pk: int
    name: str

    def __str__(self) -> str:
        return shown(self.name)


def player(user) -> Player:
    return Player(user.pk, user.username)


@dataclass(frozen=True, slots=True)
class Instant:
    """A time named in a notification: said as pages write times, with the zone, in the
    language it is said in."""

    at: datetime

    def __str__(self) -> str:
        return utc_text(self.at)


def stored(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as a notification keeps them: a match and a player by their ids, numbers and
    times as they are, anything else as its words in the active language."""
    kept: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, Match):
            kept[name] = {"match": value.pk}
        elif isinstance(value, Player):
            kept[name] = {"player": value.pk}  # never the name: it may change or be erased
        elif isinstance(value, Tournament):
            kept[name] = {"tournament": value.pk, "name": value.name}
        elif isinstance(value, Instant):
            kept[name] = {"instant": value.at.isoformat()}
        elif isinstance(value, bool | int | float):
            kept[name] = value
        else:
            kept[name] = str(value)
    return kept


def say(message: str, params: Mapping[str, Any]) -> str:
    """``message`` in the active language with ``params`` (as given, not as kept)."""
    words = gettext(message)
    if params:
        words %= {name: str(value) for name, value in params.items()}
    return words


def show(message: str, params: Mapping[str, Any]) -> SafeString:
    """``say`` for a page: the words escaped, and a time written as pages write one
    (``when``: in the reader's own zone once the browser has it)."""
    words = conditional_escape(gettext(message))
    if not params:
        return words
    values = {
        name: when(value.at, "zoned") if isinstance(value, Instant) else conditional_escape(value)
        for name, value in params.items()
    }
    return mark_safe(words % values)


def say_all(notifications: Iterable[Notification]) -> list[Notification]:
    """The notifications, each with its words in the active language (``said``) and, for one
    about a tournament and no match, the tournament's address (``link``): three queries at
    most, whatever their number."""
    notifications = list(notifications)
    players: set[int] = set()
    matches: set[int] = set()
    tournaments: set[int] = set()
    for notification in notifications:
        for value in (notification.params or {}).values():
            if isinstance(value, dict) and "player" in value:
                players.add(value["player"])
            elif isinstance(value, dict) and "match" in value:
                matches.add(value["match"])
            elif isinstance(value, dict) and "tournament" in value:
                tournaments.add(value["tournament"])
    names = dict(User.objects.filter(pk__in=players).values_list("pk", "username"))
    found = {
        match.pk: match
        for match in Match.objects.filter(pk__in=matches).select_related(
            "puzzle__tournament", "tournament"
        )
    }
    held = dict(Tournament.objects.filter(pk__in=tournaments).values_list("pk", "name"))
    for notification in notifications:
        if notification.message:
            params = _params(notification, names, found, held)
            notification.said = say(notification.message, params)
            notification.shown = show(notification.message, params)
        else:  # kept from before: its words as they were written
            notification.said = notification.text
            notification.shown = conditional_escape(notification.text)
        notification.link = "" if notification.match_id else _link(notification, held)
    return notifications


def _link(notification: Notification, tournaments: dict[int, str]) -> str:
    for value in (notification.params or {}).values():
        if isinstance(value, dict) and value.get("tournament") in tournaments:
            return reverse("tournament", args=[value["tournament"]])
    return ""


def _params(
    notification: Notification,
    names: dict[int, str],
    matches: dict[int, Match],
    tournaments: dict[int, str],
) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, value in (notification.params or {}).items():
        if isinstance(value, dict) and "player" in value:
            params[name] = shown(names.get(value["player"], ""))
        elif isinstance(value, dict) and "match" in value:
            match = matches.get(value["match"])
            params[name] = match if match is not None else f"#{value['match']}"
        elif isinstance(value, dict) and "tournament" in value:
            params[name] = tournaments.get(value["tournament"], value.get("name", ""))
        elif isinstance(value, dict) and "instant" in value:
            params[name] = Instant(datetime.fromisoformat(value["instant"]))
        else:
            params[name] = value
    return params
