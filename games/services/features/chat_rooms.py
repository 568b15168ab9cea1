"""The chat of a match: who reads and who writes what, decided here only.

A match has two rooms. Its players write and read the players' room; anybody else who may
look at the match (``visibility``) writes and reads the spectators' room, which the players
read only once the match is over, as every spectator's word might be about their game.
There is no chat in solo games and puzzle challenges (a puzzle's order is a secret its
players share), and in a match played at each player's own pace (``PaceRules``: NMBR 9's
free pace) the players' room stays closed while it runs: a player ahead could tell the
others what is coming. A match over (or called off) keeps its chat, closed for writing: its
replay shows both rooms to its players and the spectators' room to everybody else.

Nobody reads what a player they blocked writes, nor a chat they muted (``ChatMute``) or any
chat once they turned chats off in their settings (``Profile.show_chats``). Only accounts
write (not visitors, guests or bots), never while the staff keeps them from it
(``ChatBan``), and at most ``limits.CHAT_MESSAGES``. A message is plain text
(``inputs.parse_text``), shown as text everywhere.

A tournament has a chat too (``tournament_chat``), under the same rules of writing.

Once a message is stored, the pages of its room's readers are told that there is something
new (``{"event": "chat"}`` on their live channels: never the text, which each page fetches
as its reader may read it), and nobody is notified otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.contract import PaceRules
from games.infra import limits
from games.inputs import parse_text
from games.models import ChatBan, ChatMessage, ChatMute, Match, Profile, Seat, Tournament
from games.models.chat import MESSAGE_LENGTH
from games.services.features.blocks import blocked_ids
from games.services.match import bus, unit, visibility
from games.services.match.matchview import WATCH
from games.services.match.play import open_match
from games.services.match.record import MoveRefused, options_of, rules_of

PLAYERS = ChatMessage.Room.PLAYERS
SPECTATORS = ChatMessage.Room.SPECTATORS
#: A message has at most this many lines.
MESSAGE_LINES = 5
#: The messages of a room a page shows: the newest this many.
SHOWN = 200


class ChatRefused(MoveRefused):
    """A message that may not be written; ``str()`` says why."""


class TooFast(ChatRefused):
    """A message over the rate limit."""


@dataclass(frozen=True, slots=True)
class Said:
    """A message as its reader sees it: its text is empty once the staff removed it."""

    id: int
    author_id: int
    author: str
    text: str
    created: datetime
    removed: bool
    own: bool


@dataclass(frozen=True, slots=True)
class Room:
    name: str
    said: tuple[Said, ...]

    @property
    def label(self) -> str:
        return str(ChatMessage.Room(self.name).label)


@dataclass(frozen=True, slots=True)
class Chat:
    """What one reader gets of a match's chat (or a tournament's: ``tournament``, with the
    invitation ``key`` the reader came with, and ``match`` None).

    ``rooms``: the rooms they read, with the messages they may read (none while the chat is
    muted or chats are off); ``room``: the one they may write in now ("" for none), else
    ``closed`` says why not (or ``banned_until``: the staff keeps them from writing).
    """

    match: Match | None
    exists: bool
    rooms: tuple[Room, ...] = ()
    room: str = ""
    closed: str = ""
    banned_until: datetime | None = None
    muted: bool = False
    off: bool = False
    member: bool = False  # an account: may mute the chat and report messages
    tournament: Tournament | None = None
    key: str = ""
    ended: bool = False  # a tournament's chat: no message comes any more

    @property
    def live(self) -> bool:
        """Whether new messages may still come (the page looks for them)."""
        ended = over(self.match) if self.match is not None else self.ended
        return self.exists and not ended and not (self.muted or self.off)

    @property
    def url(self) -> str:
        """Where the chat's messages are read and written."""
        return self._address("chat", "tournament_chat")

    @property
    def mute_url(self) -> str:
        return self._address("chat_mute", "tournament_chat_mute")

    def _address(self, of_match: str, of_tournament: str) -> str:
        if self.match is not None:
            return reverse(of_match, args=[self.match.pk])
        assert self.tournament is not None
        url = reverse(of_tournament, args=[self.tournament.pk])
        return f"{url}?{urlencode({'key': self.key})}" if self.key else url


def has_chat(match: Match) -> bool:
    """Solo games and puzzle challenges have no chat."""
    return match.kind == Match.Kind.MATCH


def over(match: Match) -> bool:
    return match.status in (Match.Status.FINISHED, Match.Status.CANCELLED)


def own_pace(match: Match) -> bool:
    """Whether each player of the match goes at their own pace (NMBR 9's free pace)."""
    rules = rules_of(match)
    return isinstance(rules, PaceRules) and rules.own_pace(options_of(match))


def rooms_read(match: Match, seat: Seat | None) -> tuple[str, ...]:
    """The rooms the reader of ``seat`` (None: not a player) reads."""
    if not has_chat(match):
        return ()
    if seat is None:
        return (SPECTATORS,)
    return (PLAYERS, SPECTATORS) if over(match) else (PLAYERS,)


def profile_of(user) -> Mapping[str, Any]:
    """What the chat needs of a signed-in user's profile (guest, bot, show_chats)."""
    found = Profile.objects.filter(player=user).values("guest", "bot", "show_chats").first()
    return found or {"guest": False, "bot": "", "show_chats": True}


def writing(
    match: Match, seat: Seat | None, user, profile: Mapping[str, Any] | None = None
) -> tuple[str, str]:
    """The room ``user`` (with ``seat`` in the match, or None) may write in now, and "";
    or "" and why they may not (the staff's bans aside: ``banned_until``). ``profile``:
    theirs (``_profile``), if the caller has it."""
    if not has_chat(match):
        return "", _("This game has no chat.")
    if over(match):
        return "", _("The match is over: its chat is closed.")
    refusal = writer_refusal(user, profile, bot=seat is not None and bool(seat.bot))
    if refusal:
        return "", refusal
    if seat is None:
        return SPECTATORS, ""
    if match.status == Match.Status.ACTIVE and own_pace(match):
        return "", _(
            "In free pace the players cannot chat until every player has finished: "
            "a player ahead could tell the others what is coming."
        )
    return PLAYERS, ""


def writer_refusal(user, profile: Mapping[str, Any] | None = None, *, bot: bool = False) -> str:
    """Why ``user`` may write in no chat ("" if they may, the staff's bans aside): only
    accounts write, not visitors, guests or bots."""
    if not user.is_authenticated:
        return _("Log in to write in the chat.")
    profile = profile or profile_of(user)
    if profile["bot"] or bot:
        return _("Bots do not chat.")
    if profile["guest"]:
        return _("Create an account to write in the chat.")
    return ""


def banned_until(user) -> datetime | None:
    """Until when the staff keeps ``user`` from writing in chats (None: they may write)."""
    if not user.is_authenticated:
        return None
    return (
        ChatBan.objects.filter(player=user, until__gt=timezone.now())
        .order_by("-until")
        .values_list("until", flat=True)
        .first()
    )


def _seat_of(user, seats: list[Seat]) -> Seat | None:
    return next((s for s in seats if user.is_authenticated and s.player_id == user.pk), None)


def messages(match: Match, reader, *, seats: list[Seat] | None = None) -> Chat:
    """What ``reader`` may read of the chat of ``match`` (``seats``: its seats, if the caller
    has them), and where they may write. Raises as ``visibility.check_match_visible`` does
    for a match with a chat that they may not look at."""
    if not has_chat(match):
        return Chat(match, exists=False)  # nothing to tell, whoever asks
    if seats is None:
        seats = list(Seat.objects.filter(match=match))
    seat = _seat_of(reader, seats)
    visibility.check_match_visible(reader, match, seat)
    profile = profile_of(reader) if reader.is_authenticated else None
    room, closed = writing(match, seat, reader, profile)
    banned = banned_until(reader) if room else None
    chat = Chat(
        match,
        exists=True,
        room="" if banned else room,
        closed=closed,
        banned_until=banned,
        member=profile is not None and not profile["guest"],
    )
    if profile is not None:
        off = not profile["show_chats"]
        muted = ChatMute.objects.filter(player=reader, match=match).exists()
        if off or muted:
            return replace(chat, off=off, muted=muted)
    hidden = blocked_ids(reader)
    rooms = tuple(
        Room(name, newest(ChatMessage.objects.filter(match=match, room=name), hidden, reader))
        for name in rooms_read(match, seat)
    )
    return replace(chat, rooms=rooms)


def newest(messages, hidden: set[int], reader) -> tuple[Said, ...]:
    """The newest ``SHOWN`` of a room's ``messages`` (a match's or a tournament's), oldest
    first, but those of ``hidden`` authors."""
    rows = (
        messages.exclude(author_id__in=hidden)
        .select_related("author")
        .order_by("-created", "-id")[:SHOWN]
    )
    me = reader.pk if reader.is_authenticated else None
    return tuple(
        Said(
            id=m.pk,
            author_id=m.author_id,
            author=m.author.username,
            text="" if m.removed else m.text,
            created=m.created,
            removed=m.removed is not None,
            own=m.author_id == me,
        )
        for m in reversed(rows)
    )


def may_read(message: ChatMessage, reader) -> bool:
    """Whether ``reader`` may read ``message`` (muting aside): one of their rooms of a match
    they may look at, by an author they have not blocked."""
    match = message.match
    if match is None:
        return False  # a tournament's: ``tournament_chat.may_read``
    seat = _seat_of(reader, list(Seat.objects.filter(match=match)))
    try:
        visibility.check_match_visible(reader, match, seat)
    except (Match.DoesNotExist, visibility.Hidden):
        return False
    return message.room in rooms_read(match, seat) and message.author_id not in blocked_ids(reader)


def read(match_id: int, user) -> Chat:
    """``messages`` of the match ``match_id`` (raises as ``play.open_match`` does)."""
    match, seats, _seat = open_match(match_id, user)
    return messages(match, user, seats=seats)


def post(match_id: int, user, text: str) -> ChatMessage:
    """``user`` writes ``text`` in the chat of match ``match_id``, in the room they write
    in; ChatRefused (TooFast over the rate limit) with the reason if they may not, having
    stored nothing. Raises as ``play.open_match`` does for a match they may not look at."""
    match, seats, seat = open_match(match_id, user)
    room, closed = writing(match, seat, user)
    if closed:
        raise ChatRefused(closed)
    text = checked_text(user, text)
    with unit.change(match.pk, state=False) as change:
        message = ChatMessage.objects.create(match=match, author=user, room=room, text=text)
        said(change, room)
    return message


def checked_text(user, text: str) -> str:
    """``text`` as a message that ``user`` (who may write in the chat) writes now: plain
    text, counted by the rate limit; ChatRefused (TooFast over the limit) with the reason if
    they may not write it: the staff keeps them from it, or it is no message."""
    banned = banned_until(user)
    if banned is not None:
        until = f"{date_format(timezone.localtime(banned, UTC), 'SHORT_DATETIME_FORMAT')} UTC"
        raise ChatRefused(_("You cannot write in chats until %(until)s.") % {"until": until})
    try:
        text = parse_text(text, max_length=MESSAGE_LENGTH, max_lines=MESSAGE_LINES)
    except ValueError as exc:
        raise ChatRefused(_("Your message: %(reason)s.") % {"reason": exc}) from None
    wait = limits.hit("chat", str(user.pk), limits.CHAT_MESSAGES)
    if wait:
        raise TooFast(
            ngettext(
                "You are writing too fast. Try again in %(wait)s minute.",
                "You are writing too fast. Try again in %(wait)s minutes.",
                wait,
            )
            % {"wait": wait}
        )
    return text


def said(change: unit.Change, room: str) -> None:
    """Something changed in the chat room ``room`` of the match being changed: the pages of
    its readers are told once the change commits (``bus.ChatPosted``): each human player's
    for the players' room, the spectators' for theirs."""
    if room == PLAYERS:
        audiences = tuple(str(s.index) for s in change.record.seats if not s.bot)
    else:
        audiences = (WATCH,)
    change.emit(bus.ChatPosted(change.match, room, audiences))


def mute(match_id: int, user, muted: bool) -> None:
    """``user`` mutes the chat of match ``match_id`` (``muted``) or shows it again. Raises as
    ``play.open_match`` does for a match they may not look at, ChatRefused for one without
    a chat."""
    match, _seats, _seat = open_match(match_id, user)
    if not has_chat(match):
        raise ChatRefused(_("This game has no chat."))
    if not muted:
        ChatMute.objects.filter(player=user, match=match).delete()
        return
    try:
        with transaction.atomic():
            ChatMute.objects.get_or_create(player=user, match=match)
    except IntegrityError:
        pass  # muted at the same moment by another request
