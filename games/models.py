"""What is stored: matches (a solo game is a match with one seat), seats, moves, stats.

A match's whole state follows from its seed and its moves; the engine in
``games.nmbr9`` replays them. Nothing here changes state by itself: the service
functions in ``games.services`` do, atomically.
"""

from django.conf import settings
from django.db import models
from django.urls import reverse

from games.nmbr9 import Placement


class Match(models.Model):
    class Kind(models.TextChoices):
        SOLO = "solo", "Solo"

    class Pace(models.TextChoices):
        ROUNDS = "rounds", "Rounds"
        FREE = "free", "Free"

    class Status(models.TextChoices):
        ACTIVE = "active", "In progress"
        FINISHED = "finished", "Finished"

    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SOLO)
    pace = models.CharField(max_length=8, choices=Pace.choices, default=Pace.ROUNDS)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True
    )
    seed = models.BigIntegerField()
    players = models.PositiveSmallIntegerField(default=1)
    removed = models.PositiveSmallIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="created_matches"
    )
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("game", args=[self.pk])

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seats"
    )
    index = models.PositiveSmallIntegerField()
    placed = models.PositiveSmallIntegerField(default=0)
    score = models.IntegerField(default=0)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="seat_index_unique"),
            models.UniqueConstraint(fields=["match", "player"], name="seat_player_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.match}"


class Move(models.Model):
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="moves")
    round = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()
    x = models.SmallIntegerField()
    y = models.SmallIntegerField()
    rotation = models.PositiveSmallIntegerField()
    level = models.PositiveSmallIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seat_id", "round"]
        constraints = [
            models.UniqueConstraint(fields=["seat", "round"], name="move_round_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.placement} (round {self.round})"

    @property
    def placement(self) -> Placement:
        return Placement(number=self.number, x=self.x, y=self.y, rotation=self.rotation)


class PlayerStats(models.Model):
    """Figures shown on a profile, recomputed by a Celery task when a game ends."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stats"
    )
    solo_games = models.PositiveIntegerField(default=0)
    solo_best = models.IntegerField(null=True, blank=True)
    solo_average = models.FloatField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "player stats"

    def __str__(self) -> str:
        return f"stats of {self.player}"
