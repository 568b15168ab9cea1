"""What the site forgets with time: notifications read more than ``READ_KEPT`` ago, and any
older than ``KEPT``, a batch at each sweep (so that the inbox's table does not grow with
the whole history, and no sweep waits long on it)."""

from datetime import datetime, timedelta

from django.utils import timezone

from games.models import Notification

READ_KEPT = timedelta(days=90)
KEPT = timedelta(days=365)
#: Notifications removed at most per sweep.
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
