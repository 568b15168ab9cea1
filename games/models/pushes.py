"""Push notifications: a player's devices, and each push owed to one of them."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models.matches import Match

#: The longest push service URL a subscription may have.
ENDPOINT_LENGTH = 1000


class PushSubscription(models.Model):
    """A browser taking the player's push notifications: its push service's URL and keys."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_devices"
    )
    endpoint = models.URLField(max_length=ENDPOINT_LENGTH, unique=True)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=50)
    user_agent = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"push device {self.pk} of player {self.player_id}"


class PushMessage(models.Model):
    """A push for one device, due at ``send_at`` (None: sent; see ``games.infra.webpush``)."""

    device = models.ForeignKey(PushSubscription, on_delete=models.CASCADE, related_name="pushes")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, null=True, blank=True)
    kind = models.CharField(max_length=8)
    payload = models.JSONField(help_text="The title, body, url and tag the device shows.")
    send_at = models.DateTimeField(null=True, blank=True, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.kind} push {self.pk}"
