"""Guests: visitors who play without an account.

A guest is a real player (a user with ``Profile.guest``, named ``guest-…``) kept in the
visitor's session: their games work like anyone's, but they are on no leaderboard and move
no rating. When they sign up or log in, their games, attempts and daily puzzle become the
account's (``adopt``). Guests idle for ``IDLE`` are removed with their games by the sweep;
one who took a seat beside other players (by an invitation link) keeps that seat for them,
under the guest's name, and nothing else.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games.infra import queue
from games.models import DailyResult, Match, Notification, Profile, Seat
from games.services.match import finish

PREFIX = "guest-"
#: A guest who has not been on the site for this long is removed with their games.
IDLE = timedelta(days=30)


def is_guest_name(name: str) -> bool:
    """Names beginning with ``PREFIX`` are the site's guests: no account may take one."""
    return name.lower().startswith(PREFIX)


def create() -> User:
    """A new guest player."""
    with transaction.atomic():
        while True:
            name = f"{PREFIX}{secrets.token_hex(4)}"
            if not User.objects.filter(username__iexact=name).exists():
                break
        guest = User.objects.create_user(name)  # no password: a guest never logs in
        Profile.objects.create(player=guest, guest=True, last_seen=timezone.now())
    return guest


def is_guest(user) -> bool:
    """Whether ``user`` (or a user id) is a guest."""
    pk = getattr(user, "pk", user)
    return pk is not None and Profile.objects.filter(player_id=pk, guest=True).exists()


def has_played(guest) -> bool:
    """Whether the guest has begun any game (solo, puzzle, against a bot or beside others)."""
    return Seat.objects.filter(player=guest).exists()


def guest_ids(player_ids) -> set[int]:
    """Which of ``player_ids`` are guests."""
    return set(
        Profile.objects.filter(player_id__in=list(player_ids), guest=True).values_list(
            "player_id", flat=True
        )
    )


def adopt(guest_id: int, account) -> bool:
    """The guest ``guest_id``'s games, puzzle attempts and notifications become the
    ``account``'s, and the guest is removed. A daily attempt counts for its day if the
    account had none that day (and it was finished on it); otherwise it is practice.
    False if there was no such guest (adopted already, or removed)."""
    with transaction.atomic():
        guest = (
            User.objects.select_for_update()
            .filter(pk=guest_id, profile__guest=True)
            .exclude(pk=account.pk)
            .first()
        )
        if guest is None:
            return False
        for match in Match.objects.filter(created_by=guest, daily=True).select_related("puzzle"):
            _adopt_daily(match, account)
        # Matches the two share keep the guest's seat (guests play alone or against bots).
        shared = list(
            Match.objects.filter(seats__player=account)
            .filter(seats__player=guest)
            .values_list("pk", flat=True)
        )
        Seat.objects.filter(player=guest).exclude(match_id__in=shared).update(player=account)
        Match.objects.filter(created_by=guest).exclude(pk__in=shared).update(created_by=account)
        Notification.objects.filter(player=guest).update(player=account)
        if not Seat.objects.filter(player=guest).exists():
            guest.delete()
        finish.recount_solo_bests(account.pk)
        transaction.on_commit(lambda: queue.send("games.tasks.refresh_player_stats", account.pk))
    return True


def _adopt_daily(match: Match, account) -> None:
    """A guest's attempt at a daily puzzle, before it becomes ``account``'s: it counts for
    its day, or goes on counting when it is finished, only if the account has no attempt
    on that puzzle and no result that day."""
    puzzle = match.puzzle
    assert puzzle is not None and puzzle.daily_on is not None, "not a daily attempt"
    taken = (
        DailyResult.objects.filter(player=account, day=puzzle.daily_on).exists()
        or Match.objects.filter(created_by=account, daily=True, puzzle=puzzle).exists()
    )
    if taken:
        Match.objects.filter(pk=match.pk).update(daily=False)
    elif match.status == Match.Status.FINISHED:
        seat = match.seats.get()
        finish.count_for_the_day(match, account.pk, seat.score)


def _idle(now: datetime | None = None):
    cutoff = (now or timezone.now()) - IDLE
    return Profile.objects.filter(guest=True, player__is_active=True).filter(
        Q(last_seen__lt=cutoff) | Q(last_seen=None, player__date_joined__lt=cutoff)
    )


def idle(now: datetime | None = None, limit: int = 500) -> list[int]:
    """Guests who have not been on the site for ``IDLE``."""
    return list(_idle(now).order_by("last_seen").values_list("player_id", flat=True)[:limit])


def remove_idle(player_ids: list[int], now: datetime | None = None) -> int:
    """Remove those of ``player_ids`` who are idle guests (still: one may have come back
    since the sweep found them), with their games; of one who played with others, only what
    is theirs alone (``_retire``). Returns how many."""
    gone = list(_idle(now).filter(player_id__in=player_ids).values_list("player_id", flat=True))
    shared = set(
        Match.objects.filter(_with_others(gone)).values_list("seats__player_id", flat=True)
    ) & set(gone)
    if gone:
        User.objects.filter(pk__in=set(gone) - shared, profile__guest=True).delete()
    for guest_id in shared:
        _retire(guest_id)
    return len(gone)


def _with_others(guest_ids) -> Q:
    """Matches with a seat of one of ``guest_ids`` and a seat of a person not them."""
    others = Seat.objects.filter(match=OuterRef("pk"), bot="").exclude(player_id__in=guest_ids)
    return Q(seats__player_id__in=guest_ids) & Q(Exists(others))


def _retire(guest_id: int) -> None:
    """An idle guest who played beside other players: their seats in those matches stay
    (the others' games would lose their moves), everything else of theirs goes, and the
    guest can no longer be signed in (nor is found idle again)."""
    with transaction.atomic():
        shared = Match.objects.filter(_with_others([guest_id])).values("pk")
        Match.objects.filter(seats__player_id=guest_id).exclude(pk__in=shared).delete()
        Notification.objects.filter(player_id=guest_id).delete()
        User.objects.filter(pk=guest_id).update(is_active=False)
