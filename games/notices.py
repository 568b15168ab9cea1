"""Notifications in words: kept as their English message and its parameters, said in the
reader's language when read.

A notification keeps the English message (marked with ``gettext_noop``) and its parameters
as JSON (``stored``): a match by its id, a player by their id (``Player``), anything else as
it is said. Reading them (``say_all``) puts each in the active language, naming a player by
their account's current name as the site shows names (a closed account as closed accounts
are); one kept from before had its words written once, and keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext

from games.models import Match, Notification
from games.names import shown


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


def stored(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as a notification keeps them: a match and a player by their ids, numbers as
    they are, anything else as its words in the active language."""
    kept: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, Match):
            kept[name] = {"match": value.pk}
        elif isinstance(value, Player):
            kept[name] = {"player": value.pk}  # never the name: it may change or be erased
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


def say_all(notifications: Iterable[Notification]) -> list[Notification]:
    """The notifications, each with its words in the active language (``said``): two
    queries at most, whatever their number."""
    notifications = list(notifications)
    players: set[int] = set()
    matches: set[int] = set()
    for notification in notifications:
        for value in (notification.params or {}).values():
            if isinstance(value, dict) and "player" in value:
                players.add(value["player"])
            elif isinstance(value, dict) and "match" in value:
                matches.add(value["match"])
    names = dict(User.objects.filter(pk__in=players).values_list("pk", "username"))
    found = {
        match.pk: match for match in Match.objects.filter(pk__in=matches).select_related("puzzle")
    }
    for notification in notifications:
        notification.said = _said(notification, names, found)
    return notifications


def _said(notification: Notification, names: dict[int, str], matches: dict[int, Match]) -> str:
    if not notification.message:
        return notification.text  # kept from before: its words as they were written
    params: dict[str, Any] = {}
    for name, value in (notification.params or {}).items():
        if isinstance(value, dict) and "player" in value:
            params[name] = shown(names.get(value["player"], ""))
        elif isinstance(value, dict) and "match" in value:
            match = matches.get(value["match"])
            params[name] = match if match is not None else f"#{value['match']}"
        else:
            params[name] = value
    return say(notification.message, params)
