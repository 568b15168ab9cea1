"""The chat of a tournament: who reads it and who writes in it, decided here only.

A tournament has one room, its entrants'. Whoever may look at the tournament reads it
(``tournaments.find``: anybody for a listed one, visitors too; an unlisted one's entrants,
creator and holders of its link); its entrants and its creator write in it, as in a match's
chat (``chat_rooms``): accounts only, not while the staff keeps them from it, plain text,
counted by the same rate limit, and nobody reads what a player they blocked wrote, nor a
chat they muted, nor any chat once chats are off. Its messages are reported and removed as
a match's (``reports``).

It is open before the start and while the tournament runs, except while the games of a
duplicate are open: every entrant plays the same deals, and one ahead could tell the others
what is coming (as in a match in free pace). Once the tournament is over or called off its
chat is kept, closed for writing. The site posts nothing in it and tells nobody of a message:
the pages that show it look for new ones (every 10 s).
"""

from __future__ import annotations

from dataclasses import replace

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.models import ChatMessage, ChatMute, Entry, Tournament
from games.services.features import tournaments
from games.services.features.blocks import blocked_ids
from games.services.features.chat_rooms import (
    Chat,
    ChatRefused,
    Room,
    banned_until,
    checked_text,
    newest,
    profile_of,
    writer_refusal,
)

ENTRANTS = ChatMessage.Room.ENTRANTS


def ended(tournament: Tournament) -> bool:
    return tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)


def writing(tournament: Tournament, user, profile=None) -> tuple[str, str]:
    """The room ``user`` may write in now, and ""; or "" and why they may not (the staff's
    bans aside: ``chat_rooms.banned_until``)."""
    if ended(tournament):
        return "", _("The tournament is over: its chat is closed.")
    refusal = writer_refusal(user, profile)
    if refusal:
        return "", refusal
    entered = Entry.objects.filter(tournament=tournament, player=user).exists()
    if not entered and tournament.created_by_id != user.pk:
        return "", _("Only the entrants write in this chat.")
    if (
        tournament.status == Tournament.Status.RUNNING
        and tournament.format == Tournament.Format.DUPLICATE
    ):
        return "", _(
            "While the games are open the entrants cannot chat: a player ahead could tell "
            "the others what is coming."
        )
    return ENTRANTS, ""


def messages(tournament: Tournament, reader, key: str = "") -> Chat:
    """What ``reader`` (who may look at the tournament) may read of its chat, and whether
    they may write in it; ``key``: the invitation key they came with."""
    profile = profile_of(reader) if reader.is_authenticated else None
    room, closed = writing(tournament, reader, profile)
    banned = banned_until(reader) if room else None
    chat = Chat(
        None,
        exists=True,
        room="" if banned else room,
        closed=closed,
        banned_until=banned,
        member=profile is not None and not profile["guest"],
        tournament=tournament,
        key=key,
        ended=ended(tournament),
    )
    if profile is not None:
        off = not profile["show_chats"]
        muted = ChatMute.objects.filter(player=reader, tournament=tournament).exists()
        if off or muted:
            return replace(chat, off=off, muted=muted)
    messages = ChatMessage.objects.filter(tournament=tournament)
    entrants = Room(ENTRANTS, newest(messages, blocked_ids(reader), reader))
    return replace(chat, rooms=(entrants,))


def read(tournament_id: int, user, key: str = "") -> Chat:
    """``messages`` of the tournament ``tournament_id``; Tournament.DoesNotExist for one
    ``user`` may not look at."""
    return messages(tournaments.find(tournament_id, user, key), user, key)


def post(tournament_id: int, user, text: str, key: str = "") -> ChatMessage:
    """``user`` writes ``text`` in the tournament's chat; ChatRefused (TooFast over the rate
    limit) with the reason if they may not, having stored nothing."""
    tournament = tournaments.find(tournament_id, user, key)
    room, closed = writing(tournament, user)
    if closed:
        raise ChatRefused(closed)
    text = checked_text(user, text)
    return ChatMessage.objects.create(tournament=tournament, author=user, room=room, text=text)


def may_read(message: ChatMessage, reader) -> bool:
    """Whether ``reader`` may read ``message`` of a tournament's chat (muting aside): one of
    a tournament they may look at without its link (its page's chat, as they know it), by
    an author they have not blocked."""
    if message.tournament_id is None:
        return False  # a match's: ``chat_rooms.may_read``
    try:
        tournaments.find(message.tournament_id, reader)
    except Tournament.DoesNotExist:
        return False
    return message.author_id not in blocked_ids(reader)


def mute(tournament_id: int, user, muted: bool, key: str = "") -> None:
    """``user`` mutes the tournament's chat (``muted``) or shows it again."""
    tournament = tournaments.find(tournament_id, user, key)
    if not muted:
        ChatMute.objects.filter(player=user, tournament=tournament).delete()
        return
    try:
        with transaction.atomic():
            ChatMute.objects.get_or_create(player=user, tournament=tournament)
    except IntegrityError:
        pass  # muted at the same moment by another request
