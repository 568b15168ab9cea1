"""Closing an account at its owner's request, or by the staff (``games.admin``: a report).

What identifies the person goes: the name becomes ``closed-N`` (N: the account's number,
shown as "closed account N" in the reader's language), the e-mail addresses, the password
(the account can no longer log in) and its sessions, the settings, the devices that got
its push notifications, notifications, ratings, figures and daily results (so every
leaderboard drops it), whom it follows and blocks and who follows or blocks it (with when
either was told of a follow). Its finished games stay, for the other players, under that
name; the matches it was playing are resigned, and those not started yet are called off.
"""

from __future__ import annotations

import contextlib

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from games import notices
from games.models import (
    Block,
    ChallengeOffer,
    DailyResult,
    Follow,
    FollowNotice,
    Match,
    Notification,
    PlayerStats,
    Profile,
    PushSubscription,
    Rating,
    Seat,
)
from games.names import closed_name
from games.services.match import unit
from games.services.match.lobby import cancel_match
from games.services.match.play import resign
from games.services.match.record import MoveRefused


def close(user: User) -> None:
    """Close ``user``'s account (see the module's doc). Safe to call twice."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        user.username = closed_name(user.pk)
        user.email = ""
        user.first_name = user.last_name = ""
        user.is_active = False
        user.set_unusable_password()  # also ends every session signed in with the old one
        user.save()
        Profile.objects.filter(player=user).update(
            pending_email="", language="", email_on_move=False, last_seen=None
        )
        PushSubscription.objects.filter(player=user).delete()  # with the pushes waiting
        Rating.objects.filter(player=user).delete()
        PlayerStats.objects.filter(player=user).delete()
        DailyResult.objects.filter(player=user).delete()
        ChallengeOffer.objects.filter(challenger=user, match=None).delete()
        Follow.objects.filter(Q(follower=user) | Q(followed=user)).delete()
        FollowNotice.objects.filter(Q(follower=user) | Q(followed=user)).delete()
        Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()
    playing = Seat.objects.filter(player=user, match__status=Match.Status.ACTIVE).exclude(
        state__in=[Seat.State.RESIGNED, Seat.State.DROPPED]
    )
    for match_id in playing.values_list("match_id", flat=True):
        with contextlib.suppress(MoveRefused):  # every move made already: the score stands
            resign(match_id, user)
    waiting = Seat.objects.filter(player=user, match__status=Match.Status.WAITING)
    for match_id in waiting.values_list("match_id", flat=True):
        with unit.change(match_id) as change:
            if change.match.status == Match.Status.WAITING:
                cancel_match(
                    change,
                    gettext_noop("%(player)s closed their account: the match is called off."),
                    player=notices.player(user),
                )
    # Last, with those the matches just left wrote for it.
    Notification.objects.filter(player=user).delete()
    _end_sessions(user)


def _end_sessions(user: User) -> None:
    """Delete the account's sessions (they stopped working with its password already). The
    store knows no session's account without reading it: each running session is read."""
    now = timezone.now()
    mine = []
    for session in Session.objects.filter(expire_date__gt=now).iterator(chunk_size=2000):
        if str(session.get_decoded().get(SESSION_KEY)) == str(user.pk):
            mine.append(session.pk)
    Session.objects.filter(pk__in=mine).delete()
