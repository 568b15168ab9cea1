"""Quick pairing's pools: the players waiting for a real-time match ("Play now").

A player waits in at most one pool (a game, a speed, a number of players) at a time; their
entry stays, with the match they were paired in, until they join again, leave, or stop
looking (``services.features.pools``)."""

from django.conf import settings
from django.db import models

from games.models.matches import Match


class PoolEntry(models.Model):
    """``player`` waits for a real-time ``game`` of ``players`` at ``speed``."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pool_entry"
    )
    game = models.CharField(max_length=16)
    speed = models.CharField(max_length=8, help_text="One of lobby.SPEEDS: 15s, 30s, 60s.")
    players = models.PositiveSmallIntegerField(help_text="The match's players, 2 to 4.")
    rating = models.FloatField(help_text="The player's real-time rating when they joined.")
    rated = models.BooleanField(help_text="False for a guest: their matches are casual.")
    joined = models.DateTimeField()
    seen = models.DateTimeField(help_text="The player's last contact (their page's poll).")
    match = models.ForeignKey(
        Match,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="The match the player was paired in; empty while they wait.",
    )

    class Meta:
        verbose_name_plural = "pool entries"
        indexes = [
            # The waiting entries of a pool, oldest first.
            models.Index(
                fields=["game", "speed", "players", "joined"],
                condition=models.Q(match__isnull=True),
                name="pool_waiting",
            ),
            models.Index(fields=["seen"], name="pool_seen"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(players__gte=2, players__lte=4), name="pool_players_2_to_4"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} waits for {self.game} {self.speed} x{self.players}"
