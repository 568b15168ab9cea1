"""Closing an account at its owner's request.

What identifies the person goes: the name becomes ``closed-N`` (N: the account's number,
shown as "closed account N" in the reader's language), the e-mail addresses, the password
(the account can no longer log in, and every session of it stops working), the settings,
notifications, ratings, figures and daily results (so every leaderboard drops it). Its
finished games stay, for the other players, under that name; the matches it was playing
are resigned, and those not started yet are called off.
"""

from __future__ import annotations

import contextlib

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext_noop

from games.models import (
    ChallengeOffer,
    DailyResult,
    Match,
    Notification,
    PlayerStats,
    Profile,
    Rating,
    Seat,
)
from games.names import closed_name, shown_lazy
from games.services import play
from games.services.lobby import cancel_match
from games.services.store import MoveRefused, lock


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
        Notification.objects.filter(player=user).delete()
        Rating.objects.filter(player=user).delete()
        PlayerStats.objects.filter(player=user).delete()
        DailyResult.objects.filter(player=user).delete()
        ChallengeOffer.objects.filter(challenger=user, match=None).delete()
    playing = Seat.objects.filter(player=user, match__status=Match.Status.ACTIVE).exclude(
        state__in=[Seat.State.RESIGNED, Seat.State.DROPPED]
    )
    for match_id in playing.values_list("match_id", flat=True):
        with contextlib.suppress(MoveRefused):  # every move made already: the score stands
            play.resign(match_id, user)
    waiting = Seat.objects.filter(player=user, match__status=Match.Status.WAITING)
    for match_id in waiting.values_list("match_id", flat=True):
        with transaction.atomic():
            record = lock(match_id)
            if record.match.status == Match.Status.WAITING:
                cancel_match(
                    record.match,
                    record.seats,
                    gettext_noop("%(player)s closed their account: the match is called off."),
                    player=shown_lazy(user.username),
                )
