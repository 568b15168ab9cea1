"""Reports to the staff, and what the staff does about them.

A player reports another player, or a message of theirs that the reporter may read
(``chat_rooms.may_read``, or ``tournament_chat.may_read`` for a tournament's chat), with a
reason from a short list (``Report.Reason``) and an optional note, at most
``limits.REPORTS``. Nobody else is told. The staff's queue in the admin (``games.admin``)
lists the reports not yet handled first, each message among those around it (``context``);
there the staff removes a message (its readers then see "message removed"), keeps a player
from writing in chats for a time (``ban``), or closes the account
(``services.features.closing.close``: its games stay, under "closed account N"), and each
report is marked handled with what was done.
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.infra import limits
from games.inputs import parse_choice, parse_text
from games.models import ChatBan, ChatMessage, Report
from games.models.chat import REPORT_LENGTH
from games.services.features import chat_rooms, tournament_chat
from games.services.match import unit
from games.services.match.record import MoveRefused

#: The lines a report's note may have.
NOTE_LINES = 10
#: How many messages before and after a reported one its context shows.
AROUND = 5


class ReportRefused(MoveRefused):
    """A report that cannot be made; ``str()`` says why."""


class TooMany(ReportRefused):
    """A report over the rate limit."""


def reportable(message_id: int, reporter) -> ChatMessage:
    """The message ``message_id`` if ``reporter`` may read it and the staff has not removed
    it (ChatMessage.DoesNotExist otherwise, as for a message there is not)."""
    message = ChatMessage.objects.select_related("match", "tournament", "author").get(pk=message_id)
    chat = tournament_chat if message.tournament_id is not None else chat_rooms
    if message.removed is not None or not chat.may_read(message, reporter):
        raise ChatMessage.DoesNotExist("No message you can read has this number.")
    return message


def report(
    reporter, reported: User, reason: object, text: object, message: ChatMessage | None = None
) -> Report:
    """``reporter`` reports ``reported`` (for ``message``, one of theirs ``reportable`` for
    the reporter), for ``reason`` (a ``Report.Reason``) with the note ``text``;
    ReportRefused with the reason if they may not, having stored nothing."""
    if message is not None and message.author_id != reported.pk:
        raise ReportRefused(_("This message is not theirs."))
    if reported.pk == reporter.pk:
        raise ReportRefused(_("You cannot report yourself."))
    try:
        reason = parse_choice(reason, Report.Reason.choices, default="")
    except ValueError:
        reason = ""
    if not reason:
        raise ReportRefused(_("Choose a reason."))
    try:
        text = parse_text(
            text or "", max_length=REPORT_LENGTH, max_lines=NOTE_LINES, required=False
        )
    except ValueError as exc:
        raise ReportRefused(_("Your note: %(reason)s.") % {"reason": exc}) from None
    wait = limits.hit("reports", str(reporter.pk), limits.REPORTS)
    if wait:
        hours = math.ceil(wait / 60)
        raise TooMany(
            ngettext(
                "You have sent too many reports. Try again in %(hours)s hour.",
                "You have sent too many reports. Try again in %(hours)s hours.",
                hours,
            )
            % {"hours": hours}
        )
    return Report.objects.create(
        reporter=reporter, reported=reported, message=message, reason=reason, text=text
    )


def context(message: ChatMessage) -> list[ChatMessage]:
    """The ``AROUND`` messages before ``message`` in its room, the message, and the
    ``AROUND`` after it: what the staff reads it among."""
    # A message is of a match's chat or of a tournament's, never both.
    place: dict[str, int | None] = {"match_id": message.match_id}
    if message.tournament_id is not None:
        place = {"tournament_id": message.tournament_id}
    room = ChatMessage.objects.filter(room=message.room, **place)
    room = room.select_related("author")
    earlier = room.filter(created__lte=message.created).exclude(pk=message.pk)
    earlier = earlier.exclude(created=message.created, id__gt=message.pk)
    later = room.filter(created__gte=message.created).exclude(pk=message.pk)
    later = later.exclude(created=message.created, id__lt=message.pk)
    before = list(earlier.order_by("-created", "-id")[:AROUND])[::-1]
    after = list(later.order_by("created", "id")[:AROUND])
    return [*before, message, *after]


def handle(report: Report, by: User, outcome: str) -> None:
    """Mark ``report`` handled by ``by`` with ``outcome`` (a ``Report.Outcome``)."""
    Report.objects.filter(pk=report.pk).update(
        handled_by=by, handled_at=timezone.now(), outcome=outcome
    )


def remove(message: ChatMessage, by: User) -> None:
    """The staff removes ``message``: its readers see that a message was removed, no more
    (their pages are told at once); the reports on it are handled so."""
    if message.match_id is None:  # a tournament's: its pages look for changes themselves
        with transaction.atomic():
            _remove(message, by)
        return
    with unit.change(message.match_id, state=False) as change:
        if _remove(message, by):
            chat_rooms.said(change, message.room)


def _remove(message: ChatMessage, by: User) -> int:
    changed = ChatMessage.objects.filter(pk=message.pk, removed__isnull=True).update(
        removed=timezone.now(), removed_by=by
    )
    Report.objects.filter(message=message, handled_at__isnull=True).update(
        handled_by=by, handled_at=timezone.now(), outcome=Report.Outcome.REMOVED
    )
    return changed


def ban(player: User, days: int, by: User) -> ChatBan:
    """The staff keeps ``player`` from writing in any chat for ``days`` days from now."""
    return ChatBan.objects.create(player=player, until=timezone.now() + timedelta(days=days), by=by)
