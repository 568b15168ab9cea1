"""Bots on the site: their accounts, their seats and their moves.

A bot is an account like a player's (``bot-`` and its strength: ``bot-easy``), marked by
``Profile.bot``; names beginning with ``bot-`` are the site's. The strengths a game's bots
have are the game's own (``BotRules.bot_strengths``, weakest first). Invited to a match it takes its
seat at once; its seat carries its strength (``Seat.bot``). Matches with a bot are rated in
their own list (``Rating.Pool.BOTS``), so bots never move players' match ratings.

When a bot owes a decision, settling the match marks its seat (``Seat.bot_due``) and tells
of it (``bus.BotsOwe``: its subscriber sends ``play_bots``, the task driver in ``bot_moves``,
which works out the move outside any lock and makes it like a player would). The sweep sends
``play_bots`` again for every bot that has owed a move for a while, so a lost task only
delays it. A bot never has a deadline.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.contract import BotRules
from games.models import Match, Profile, Seat
from games.registry import default_game, find_game
from games.services.match import bus
from games.services.match.record import MoveRefused

PREFIX = "bot-"
#: A bot that has owed a move this long is sent again by the sweep.
GRACE = timedelta(seconds=10)


def name_of(strength: str) -> str:
    return PREFIX + strength


def is_bot_name(name: str) -> bool:
    return name.lower().startswith(PREFIX)


def strengths(game: str) -> tuple[str, ...]:
    """The strengths of ``game``'s bots, weakest first; none if bots do not play it."""
    rules = find_game(game)
    return tuple(rules.bot_strengths) if isinstance(rules, BotRules) else ()


def account(strength: str, game: str = "") -> User:
    """The bot account of ``strength``, one of ``game``'s (the default game's when none is
    named; made the first time it is asked for)."""
    game = game or default_game()
    if strength not in strengths(game):
        raise MoveRefused(_("There is no %(strength)s bot.") % {"strength": strength})
    user = User.objects.filter(username=name_of(strength)).first()
    if user is None:
        with transaction.atomic():
            user, made = User.objects.get_or_create(username=name_of(strength))
            if made:
                user.set_unusable_password()
                user.save(update_fields=["password"])
    Profile.objects.update_or_create(
        player=user, defaults={"bot": strength, "email_on_move": False}
    )
    return user


def strength_of(user) -> str:
    """The strength of a bot account, "" for a person."""
    if not is_bot_name(user.username):
        return ""
    return Profile.objects.filter(player=user).values_list("bot", flat=True).first() or ""


def in_match(match_id: int) -> bool:
    """Whether a bot has a seat in the match ``match_id``."""
    return Seat.objects.filter(match_id=match_id).exclude(bot="").exists()


def plays(game: str) -> bool:
    return isinstance(find_game(game), BotRules)


def settle(change, now: datetime, moved: Seat | None = None) -> None:
    """Mark the bot seats of the match being changed (``unit.Change``) that owe a decision
    now (and tell that they do: ``bus.BotsOwe``); clear the others. A bot that has just
    moved and owes the next decision is still being played by its task: its mark is
    renewed, so the sweep does not send a second task meanwhile."""
    record = change.record
    match = record.match
    owing = record.rules.to_move(record.state) if match.status == Match.Status.ACTIVE else ()
    send = False
    for seat in record.seats:
        if not seat.bot:
            continue
        if seat.state == Seat.State.PLAYING and seat.index in owing:
            if seat.bot_due is None:
                seat.bot_due = now
                send = True
            elif moved is not None and seat is moved:
                seat.bot_due = now
        else:
            seat.bot_due = None
    if send:
        change.emit(bus.BotsOwe(match))


def due(now: datetime | None = None, limit: int = 1000) -> list[int]:
    """Matches where a bot has owed a move for longer than ``GRACE``."""
    now = now or timezone.now()
    return list(
        Seat.objects.filter(bot_due__lte=now - GRACE, match__status=Match.Status.ACTIVE)
        .order_by("bot_due")
        .values_list("match_id", flat=True)
        .distinct()[:limit]
    )
