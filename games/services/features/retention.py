"""What the site forgets with time, a batch at each sweep (so that no table grows with the
whole history, and no sweep waits long on it): notifications read more than ``READ_KEPT``
ago, and any older than ``KEPT``; the kept states of matches over for ``STATES_KEPT``
(``services.match.kept``: a state missing is rebuilt from the moves when the match is looked at
again, and kept a while again)."""

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from games.models import Match, MatchState, Notification

READ_KEPT = timedelta(days=90)
KEPT = timedelta(days=365)
STATES_KEPT = timedelta(days=7)
#: Notifications, and kept states, removed at most per sweep.
BATCH = 2000


def prune_notifications(now: datetime | None = None) -> int:
    """Remove a batch of notifications past their time; how many were removed."""
    now = now or timezone.now()
    old = Notification.objects.order_by()
    ids = list(
        old.filter(read=True, created__lt=now - READ_KEPT).values_list("id", flat=True)[:BATCH]
    )
    if len(ids) < BATCH:
        ids += old.filter(created__lt=now - KEPT).values_list("id", flat=True)[: BATCH - len(ids)]
    if ids:
        Notification.objects.filter(pk__in=ids).delete()
    return len(ids)


def prune_states(now: datetime | None = None) -> int:
    """Remove a batch of kept states of matches over (finished or called off) for
    ``STATES_KEPT``; how many were removed. Only matches that have a state are looked at."""
    before = (now or timezone.now()) - STATES_KEPT
    over = Q(match__status=Match.Status.FINISHED, match__finished__lt=before) | Q(
        match__status=Match.Status.CANCELLED, match__created__lt=before
    )
    ids = list(MatchState.objects.filter(over).order_by().values_list("pk", flat=True)[:BATCH])
    if ids:
        MatchState.objects.filter(pk__in=ids).delete()
    return len(ids)
