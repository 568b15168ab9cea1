"""Matches (a solo game is a match with one seat), puzzles and their daily results, challenge
offers, seats and moves."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from games import ratings
from games.registry import default_game, puzzle_game

#: The longest time per move of a real-time match (quick pairing's paces are 15 to 60 s).
REALTIME = timedelta(minutes=2)


class Match(models.Model):
    class Kind(models.TextChoices):
        SOLO = "solo", _("Solo")
        MATCH = "match", _("Match")
        PUZZLE = "puzzle", _("Puzzle")
        CHALLENGE = "challenge", _("Challenge")
        DUPLICATE = "duplicate", _("Tournament game")

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        ACTIVE = "active", _("In progress")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SOLO)
    game = models.CharField(max_length=16, default=default_game, help_text="The game's slug.")
    options = models.JSONField(default=dict, blank=True, help_text="The game's options.")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True
    )
    seed = models.BigIntegerField()
    puzzle = models.ForeignKey(
        "Puzzle", on_delete=models.PROTECT, null=True, blank=True, related_name="matches"
    )
    daily = models.BooleanField(default=False, help_text="Played as that day's daily puzzle.")
    players = models.PositiveSmallIntegerField(default=1)
    rated = models.BooleanField(default=False)
    open = models.BooleanField(default=False, help_text="Listed in the lobby for anyone to join.")
    private = models.BooleanField(
        default=False, help_text="Only its players may look at it while it is played."
    )
    time_per_move = models.DurationField(null=True, blank=True)
    rematch_of = models.OneToOneField(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rematch",
        help_text="The match its players agreed to play again in this one.",
    )
    tournament = models.ForeignKey(
        "Tournament",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="tables",
        help_text="A table of this swiss tournament, in round ``round``.",
    )
    round = models.PositiveSmallIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="created_matches"
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    rated_at = models.DateTimeField(null=True, blank=True)
    puzzle_rated_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When this attempt was weighed for puzzle ratings (even as a repeat).",
    )

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"
        constraints = [
            # A second unfinished attempt at the day's puzzle would let a player see the
            # order in one and score in the other.
            models.UniqueConstraint(
                fields=["puzzle", "created_by"],
                condition=models.Q(daily=True, status="active"),
                name="one_open_daily_attempt",
            ),
        ]
        indexes = [
            # The lobby's "Watch" list: the matches under way others may look at, newest first.
            models.Index(
                models.F("started").desc(),
                models.F("id").desc(),
                condition=models.Q(status="active", kind="match", private=False),
                name="watchable_matches",
            ),
            # What the sweep looks for among all matches ever played, each in an index of
            # its own that holds only the matches it may find (games/infra/sweep.py).
            models.Index(
                fields=["finished"],
                condition=models.Q(status="finished", rated=True, rated_at=None),
                name="unrated_matches",
            ),
            models.Index(
                fields=["finished", "id"],
                condition=models.Q(kind="puzzle", status="finished", puzzle_rated_at=None),
                name="unweighed_attempts",
            ),
            models.Index(
                fields=["finished"],
                condition=models.Q(kind__in=["solo", "match"], status="finished"),
                name="finished_games",
            ),
        ]

    def __str__(self) -> str:
        # A game on a daily puzzle has the puzzle's name, its day (lists of them read their
        # puzzles with them).
        if self.kind == self.Kind.PUZZLE and self.puzzle_id is not None:
            puzzle = self.puzzle
            if puzzle is not None and puzzle.daily_on is not None:
                return str(puzzle)
        # A tournament's game is named as its page names it (lists read the puzzle and its
        # tournament with it: ``puzzle__tournament``, and a swiss table's ``tournament``).
        if self.kind == self.Kind.DUPLICATE and self.puzzle_id is not None:
            puzzle = self.puzzle
            if puzzle is not None and puzzle.tournament is not None:
                return _("%(name)s: game %(number)s") % {
                    "name": puzzle.tournament.name,
                    "number": puzzle.number,
                }
        # A swiss table is named by its tournament's round (lists read ``tournament``).
        if self.tournament_id is not None and self.tournament is not None:
            return _("%(name)s, round %(number)s") % {
                "name": self.tournament.name,
                "number": self.round,
            }
        # The kind in the active language (the label, not get_kind_display(), which builds a
        # mapping of every choice each time: lists of matches write dozens of these).
        return f"{self.Kind(self.kind).label} #{self.pk}"

    def get_absolute_url(self) -> str:
        # A preview asks for it 3 times, a move's answer 5 (links, forms, polling): made once.
        made = self.__dict__.get("_url")
        if made is None or made[0] != self.pk:
            made = self.__dict__["_url"] = (self.pk, reverse("game", args=[self.pk]))
        return made[1]

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def realtime(self) -> bool:
        """Played in one sitting: a time per move of at most ``REALTIME``."""
        return self.time_per_move is not None and self.time_per_move <= REALTIME

    @property
    def is_solo(self) -> bool:
        """Played alone: a solo game, a puzzle or a duplicate tournament's game."""
        return self.kind in (self.Kind.SOLO, self.Kind.PUZZLE, self.Kind.DUPLICATE)


class Puzzle(models.Model):
    """A fixed deal of a game that offers puzzles (``games.registry.puzzle_games``), from
    ``seed``. A tournament's deal (``tournament``: game ``number``, open from ``opens`` to
    ``closes``) is played with its own ``options``; it is never a daily, offered for a
    challenge or searched for par. A live tournament's deal is shown a step at a time to all
    its players at once (``dealt``, each step until ``due``: ``services.match.lockstep``)."""

    game = models.CharField(
        max_length=16, default=puzzle_game, help_text="The game's slug (the site's puzzle game)."
    )
    seed = models.BigIntegerField(unique=True)
    start = models.CharField(max_length=16, help_text="What lies on the display at the start.")
    par = models.IntegerField(null=True, blank=True)
    par_line = models.JSONField(
        default=list, blank=True, help_text="The moves of a game on the puzzle that scores par."
    )
    par_queued = models.DateTimeField(
        null=True, blank=True, help_text="When the current computation of par was asked for."
    )
    daily_on = models.DateField(null=True, blank=True, unique=True)
    attempts = models.PositiveIntegerField(default=0)
    total = models.BigIntegerField(default=0)
    best = models.IntegerField(null=True, blank=True)
    rating = models.FloatField(default=1500.0)
    rated_games = models.PositiveIntegerField(
        default=0, help_text="First attempts that moved the rating."
    )
    created = models.DateTimeField(auto_now_add=True)
    options = models.JSONField(
        default=dict, blank=True, help_text="The options of its games (none: a puzzle's)."
    )
    tournament = models.ForeignKey(
        "Tournament", on_delete=models.CASCADE, null=True, blank=True, related_name="deals"
    )
    number = models.PositiveSmallIntegerField(null=True, blank=True)
    opens = models.DateTimeField(null=True, blank=True)
    closes = models.DateTimeField(null=True, blank=True, db_index=True)
    dealt = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="A live deal: how many of its steps have been shown to all its players.",
    )
    due = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="A live deal: when its step's time ends."
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="one_deal_per_tournament_game"
            ),
        ]

    def __str__(self) -> str:
        """A daily puzzle is named by its day, in the reader's language; any other by its
        number."""
        if self.daily_on is not None:
            day = date_format(self.daily_on, "DATE_FORMAT")
            return _("Daily puzzle of %(day)s") % {"day": day}
        if self.tournament_id is not None:
            return _("Game %(number)s of %(tournament)s") % {
                "number": self.number,
                "tournament": self.tournament,
            }
        return _("Puzzle #%(number)s") % {"number": self.pk}

    def get_absolute_url(self) -> str:
        return reverse("puzzle", args=[self.pk])

    @property
    def average(self) -> float | None:
        return self.total / self.attempts if self.attempts else None

    @property
    def provisional(self) -> bool:
        return ratings.is_provisional(self.rated_games)


#: The order of a day's leaderboard: the best score, then the quickest, then the first counted.
LEADERBOARD = ("-score", "seconds", "id")


class DailyResult(models.Model):
    """A player's first finished attempt at a day's puzzle: it counts for that day."""

    day = models.DateField()
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="results")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="daily_results"
    )
    match = models.OneToOneField("Match", on_delete=models.CASCADE)
    score = models.IntegerField()
    seconds = models.PositiveIntegerField()

    class Meta:
        ordering = list(LEADERBOARD)
        constraints = [
            models.UniqueConstraint(fields=["day", "player"], name="daily_result_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.day}: {self.score}"


class ChallengeOffer(models.Model):
    """The two random puzzles offered to a challenger, who picks one to play."""

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenge_offers"
    )
    first = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="+")
    invite = models.CharField(max_length=200, blank=True)
    players = models.PositiveSmallIntegerField(default=2)
    open = models.BooleanField(default=False)
    link = models.BooleanField(
        default=False, help_text="The challenge gets an invitation link (``InviteLink``)."
    )
    rated = models.BooleanField(default=True)
    time_control = models.CharField(max_length=4, default="1d")
    match = models.OneToOneField(
        "Match", on_delete=models.SET_NULL, null=True, blank=True, related_name="offer"
    )
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"offer {self.pk} to {self.challenger}"

    @property
    def puzzles(self) -> tuple[Puzzle, Puzzle]:
        return (self.first, self.second)


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seats"
    )

    class State(models.TextChoices):
        INVITED = "invited", _("Invited")
        PLAYING = "playing", _("Playing")
        RESIGNED = "resigned", _("Resigned")
        DROPPED = "dropped", _("Dropped")

    index = models.PositiveSmallIntegerField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.PLAYING)
    progress = models.PositiveSmallIntegerField(
        default=0, help_text="How far the player has got, as the game counts it."
    )
    score = models.IntegerField(default=0)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    turn = models.PositiveIntegerField(
        null=True, blank=True, help_text="The game's number of the decision the deadline is for."
    )
    strike = models.BooleanField(default=True, help_text="Missing the deadline is a strike.")
    overdue = models.BooleanField(
        default=False, help_text="The deadline of the current decision has passed."
    )
    remind_at = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="When 80% of the time to move is used."
    )
    strikes = models.PositiveSmallIntegerField(default=0, help_text="Consecutive strikes.")
    total_strikes = models.PositiveSmallIntegerField(default=0)
    extensions_left = models.PositiveSmallIntegerField(default=2)
    reminded = models.BooleanField(default=False)
    mail_at = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="When an e-mail about this seat is due."
    )
    mail_reminder = models.BooleanField(
        default=False, help_text="The e-mail due is the 80% reminder, not 'your move'."
    )
    mailed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the last 'your move' e-mail was sent."
    )
    bot = models.CharField(
        max_length=8, blank=True, help_text="The strength of the bot in this seat, if a bot."
    )
    bot_due = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="A bot in this seat owes a move since then (the sweep sees to it).",
    )
    prefs = models.JSONField(
        default=dict, blank=True, help_text="The player's choices for this match."
    )
    commitment = models.CharField(
        max_length=20,
        blank=True,
        default="",
        db_default="",
        help_text="What the player committed to before their move (the game names it).",
    )
    committed_turn = models.PositiveIntegerField(
        null=True, blank=True, help_text="The game's number of the decision it was made for."
    )
    finished = models.DateTimeField(
        null=True, blank=True, help_text="When its match finished (lists of a player's games)."
    )

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="seat_index_unique"),
            models.UniqueConstraint(fields=["match", "player"], name="seat_player_unique"),
        ]
        indexes = [
            # A player's seats that may owe a move (games.services.match.play.owed_match_ids, on
            # every page of theirs): a finished seat has neither.
            models.Index(
                fields=["player"],
                condition=models.Q(deadline__isnull=False) | models.Q(turn__isnull=False),
                name="seats_owing",
            ),
            # A player's games, newest first (profile, home), and those not over yet.
            models.Index(
                models.F("player"),
                models.F("finished").desc(),
                condition=models.Q(finished__isnull=False),
                name="finished_seats",
            ),
            models.Index(
                fields=["player"], condition=models.Q(finished=None), name="unfinished_seats"
            ),
            # Reminders due (games/infra/sweep.py): seats under a deadline not yet reminded.
            models.Index(
                fields=["remind_at"],
                condition=models.Q(reminded=False, deadline__isnull=False),
                name="reminders_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.match}"

    @property
    def has_left(self) -> bool:
        return self.state in (self.State.RESIGNED, self.State.DROPPED)


class Move(models.Model):
    """One move of a match: its number in the match (``ply``), who made it and its text in
    the game's own notation (``games.contract.LEAVE`` when the player left); ``auto``: the
    site made it for the player, ``timed_out``: as their time ran out (the match log says
    so)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField()
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="moves")
    text = models.CharField(max_length=200)
    auto = models.BooleanField(
        default=False,
        help_text="Made for the player: time ran out, or an answer given always.",
    )
    timed_out = models.BooleanField(
        default=False, help_text="Made for the player as their time ran out (the fallback)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match_id", "ply"]
        constraints = [
            models.UniqueConstraint(fields=["match", "ply"], name="move_ply_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.ply}. {self.text}"


class MatchState(models.Model):
    """A match's state as its game keeps it (``Rules.save``) after the match's first ``ply``
    moves, with how many moves each seat made and the version of what each reader sees: all
    written with every change to the match (``services.match.unit``), so that no page or move
    replays it. The moves stay the truth: a state missing, behind them, written in another
    ``format`` or unreadable is rebuilt from them (``services.match.kept``)."""

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="kept_state"
    )
    ply = models.PositiveIntegerField(help_text="The moves of the match this state is after.")
    format = models.CharField(
        max_length=64, help_text="The game's state format and what the match was dealt from."
    )
    stamp = models.BigIntegerField(help_text="Random, new with every state written.")
    data = models.BinaryField(help_text="The state, as its game saved it.")
    made = models.TextField(help_text="JSON: the moves each seat has made, by seat index.")
    versions = models.TextField(
        blank=True, help_text="JSON: the version of what each reader sees, by audience."
    )

    class Meta:
        verbose_name = "kept state"

    def __str__(self) -> str:
        return f"state of match {self.match_id} after {self.ply} moves"
