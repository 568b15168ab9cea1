"""Tournaments: their settings, their entrants and each entrant's standing.

A duplicate tournament of NMBR 9 deals its games as puzzles (``Puzzle.tournament``, with the
game's ``number``, ``opens`` and ``closes``): every entrant plays each game alone on the same
deal, a match of kind DUPLICATE, and the deal's order stays a secret as a puzzle's does
(``services.match.visibility``). The standings are kept on each ``Entry``
(``services.features.tournaments``).

A swiss tournament of nmbrs! is played in rounds (``games`` of them) of tables of
``table_size`` players, each table a match of the round (``Match.tournament``, ``Match.round``);
a ``SwissRound`` row says a round was paired, once, with its byes
(``services.features.swiss_rounds``).

A tournament the staff set to repeat (``repeat``, in the admin) has its next one created when
it starts, with its settings, ``repeat`` later; ``previous`` is unique, so there is one next.
"""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.registry import default_game

#: The time an entrant has for each game of an asynchronous tournament, by default.
WINDOW = timedelta(hours=24)
#: How often the staff may have a tournament repeat (``Tournament.repeat``).
REPEATS = [(timedelta(days=1), _("Every day")), (timedelta(days=7), _("Every week"))]


class Tournament(models.Model):
    class Format(models.TextChoices):
        DUPLICATE = "duplicate", _("Duplicate")
        SWISS = "swiss", _("Swiss")

    class Mode(models.TextChoices):
        ASYNC = "async", _("Asynchronous")
        LIVE = "live", _("Live")

    class Status(models.TextChoices):
        UPCOMING = "upcoming", _("Upcoming")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    name = models.CharField(max_length=80)
    game = models.CharField(max_length=16, default=default_game, help_text="The game's slug.")
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.DUPLICATE)
    mode = models.CharField(max_length=8, choices=Mode.choices, default=Mode.ASYNC)
    options = models.JSONField(default=dict, blank=True, help_text="The game's options.")
    games = models.PositiveSmallIntegerField(default=1, help_text="Games (or rounds) played.")
    window = models.DurationField(
        default=WINDOW, help_text="Asynchronous: the time an entrant has for each game."
    )
    time_per_move = models.DurationField(
        null=True, blank=True, help_text="Live: the time per move (none: correspondence)."
    )
    table_size = models.PositiveSmallIntegerField(
        default=0, help_text="Swiss: the players at each table (0: not a swiss)."
    )
    starts = models.DateTimeField(db_index=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.UPCOMING, db_index=True
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="created_tournaments"
    )
    open = models.BooleanField(default=True, help_text="Listed; else joined by its link only.")
    token = models.CharField(
        max_length=64, unique=True, help_text="The secret of its invitation link."
    )
    featured = models.BooleanField(default=False, help_text="Shown first (staff only).")
    repeat = models.DurationField(
        null=True,
        blank=True,
        choices=REPEATS,
        help_text="Staff: as it starts, the next one like it is created, this much later.",
    )
    previous = models.OneToOneField(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="next",
        help_text="The repeating tournament it was created as the next of (once each).",
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-featured", "starts", "id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.pk])

    @property
    def ends(self):
        """When its last game closes (asynchronous duplicate: game k closes k windows after
        the start)."""
        return self.starts + self.games * self.window


class Entry(models.Model):
    """A player in a tournament, with their standing: the total of their scores, their
    average match points (a percentage) over the games that count so far, and their rank;
    in a duplicate, the last game they were reminded of before it closed (``reminded``) and
    when the e-mail of that reminder is due (``mail_at``)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="entries"
    )
    joined = models.DateTimeField(auto_now_add=True)
    played = models.PositiveSmallIntegerField(default=0, help_text="Games that count so far.")
    score = models.IntegerField(default=0, help_text="The total of the scores that count.")
    percent = models.FloatField(default=0.0, help_text="Average match points, in per cent.")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    withdrawn = models.BooleanField(default=False, help_text="Swiss: paired no more.")
    reminded = models.PositiveSmallIntegerField(
        default=0,
        help_text="Duplicate: the last game reminded of (or that needed no reminder).",
    )
    mail_at = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="When that reminder's e-mail is due."
    )

    class Meta:
        ordering = ["rank", "-percent", "-score", "joined", "id"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="one_entry_each"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"


class SwissRound(models.Model):
    """A round of a swiss tournament, paired: its tables are the tournament's matches of this
    ``number``; ``byes`` are the players who sat it out (a point each). One row per round:
    a round is paired once, however many of its last tables finish at once."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    byes = models.JSONField(default=list, blank=True, help_text="The players' ids.")
    paired = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="one_swiss_round"),
        ]

    def __str__(self) -> str:
        return f"Round {self.number} of {self.tournament}"
