"""What is kept of players: profile figures, settings, ratings and their changes, notifications;
and when periodic work last ran."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models.matches import Match
from games.registry import default_game


class PlayerStats(models.Model):
    """A player's figures in one game, shown on their profile, recomputed by a Celery task
    when a game ends (a profile reads them, not every game the player ever finished)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stats"
    )
    game = models.CharField(max_length=16)
    solo_games = models.PositiveIntegerField(default=0)
    solo_best = models.IntegerField(null=True, blank=True)
    solo_average = models.FloatField(null=True, blank=True)
    #: The solo game of ``solo_best`` (the first that reached it).
    solo_best_match = models.ForeignKey(
        "Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    match_games = models.PositiveIntegerField(default=0)
    match_wins = models.PositiveIntegerField(default=0)
    match_average = models.FloatField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "player stats"
        constraints = [
            models.UniqueConstraint(fields=["player", "game"], name="player_stats_per_game")
        ]

    def __str__(self) -> str:
        return f"stats of {self.player} in {self.game}"


class Profile(models.Model):
    """A player's settings."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    email_on_move = models.BooleanField(
        _("E-mail on move"),
        default=True,
        help_text=_("E-mail me when it is my move and when time is running out."),
    )
    last_seen = models.DateTimeField(null=True, blank=True)
    bot = models.CharField(
        max_length=8, blank=True, help_text="The strength of a bot account; empty for a person."
    )
    guest = models.BooleanField(
        default=False,
        db_default=False,
        help_text="A visitor playing without an account (kept in their session).",
    )
    daily_streak = models.PositiveIntegerField(
        default=0, db_default=0, help_text="Daily puzzle results on consecutive days up to..."
    )
    daily_streak_day = models.DateField(
        null=True, blank=True, db_index=True, help_text="...this day, the last with a result."
    )
    language = models.CharField(
        _("Language"),
        max_length=8,
        blank=True,
        choices=settings.LANGUAGES,
        help_text=_("The language of the site and of your e-mails; empty: your browser's."),
    )
    pending_email = models.EmailField(
        blank=True,
        default="",
        db_default="",
        help_text="An address waiting for its owner to confirm it by the link sent there; "
        "the account's own address (the user's e-mail) is always a confirmed one.",
    )

    seen_language = models.CharField(
        max_length=8,
        blank=True,
        default="",
        db_default="",
        help_text="The language the player last used the site in, for what is written to "
        "them away from a page (notifications, e-mails) while they have saved none.",
    )
    push_move = models.BooleanField(default=True, db_default=True)
    push_alarm = models.BooleanField(default=True, db_default=True)
    push_invite = models.BooleanField(default=True, db_default=True)
    push_result = models.BooleanField(default=True, db_default=True)
    show_chats = models.BooleanField(
        _("Show chats"),
        default=True,
        db_default=True,
        help_text=_("Show the chats of the matches you play and watch."),
    )

    class Meta:
        indexes = [
            models.Index(fields=["last_seen"], condition=models.Q(guest=True), name="idle_guests")
        ]

    def __str__(self) -> str:
        return f"settings of {self.player}"

    @property
    def writing_language(self) -> str:
        """The language to write to the player in away from a page (notifications, e-mails):
        the one saved in Settings, else the one they last used the site in; "" if neither
        (the caller knows the best guess: the site's, or the language of the request that
        asked for the e-mail)."""
        return self.language or self.seen_language

    @staticmethod
    def languages_of(player_ids) -> dict[int, str]:
        """Each player's ``writing_language``, for the players who have one."""
        profiles = Profile.objects.filter(player_id__in=list(player_ids)).only(
            "player_id", "language", "seen_language"
        )
        return {p.player_id: p.writing_language for p in profiles if p.writing_language}


class Rating(models.Model):
    """A player's rating in one game and one pool (matches, puzzle challenges)."""

    class Pool(models.TextChoices):
        MATCH = "match", _("Matches")
        PUZZLE = "puzzle", _("Puzzle challenges")
        SOLVING = "solving", _("Puzzles")
        BOTS = "bots", _("Matches with bots")
        LIVE = "live", _("Real-time matches")

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(max_length=16, default=default_game)
    pool = models.CharField(max_length=16, choices=Pool.choices, default=Pool.MATCH)
    value = models.FloatField(default=1500.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "game", "pool"], name="rating_game_pool_unique"
            ),
        ]
        indexes = [
            # A rating list, highest first: read until it is full, not sorted whole.
            models.Index(
                models.F("game"), models.F("pool"), models.F("value").desc(), name="rating_board"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.game} {self.pool} {self.value:.0f}"


class RatingChange(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.CharField(max_length=16, default=default_game)
    pool = models.CharField(max_length=16, choices=Rating.Pool.choices)
    before = models.FloatField()
    after = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "player"], name="rating_change_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.before:.0f} -> {self.after:.0f}"

    @property
    def delta(self) -> float:
        return self.after - self.before


class Notification(models.Model):
    """A message for a player: the English ``message`` (marked with ``gettext_noop``) and its
    ``params`` (a match or a player by id: ``games.notices``), said in the reader's language
    when read; one kept from before has only its words, written once (``text``)."""

    class Kind(models.TextChoices):
        MOVE = "move", _("Your move")
        INFO = "info", _("News")

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    match = models.ForeignKey(Match, on_delete=models.CASCADE, null=True, blank=True)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.INFO)
    message = models.CharField(max_length=200, blank=True)
    params = models.JSONField(default=dict, blank=True)
    text = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(default=timezone.now)
    read = models.BooleanField(default=False)

    #: Its words in the active language, once ``games.notices.say_all`` has said them.
    said = ""
    #: The same for a page: escaped, a time in the reader's zone (``<time>``), once said.
    shown = ""
    #: Where it leads when it is about no match (a tournament's page), once said; "" if nowhere.
    link = ""

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [
            models.Index(fields=["player", "read"]),
            # What the sweep forgets (games/services/features/retention.py): read ones, then any.
            models.Index(fields=["created"], condition=models.Q(read=True), name="read_notices"),
            models.Index(fields=["created"], name="notices_by_age"),
        ]
        constraints = [
            # "Your move" is one notification per player and match, read or not, while the
            # move is theirs: brought up to date when it is theirs again, gone once made.
            models.UniqueConstraint(
                fields=["player", "match"],
                condition=models.Q(kind="move"),
                name="one_move_notification_per_match",
            ),
        ]

    def __str__(self) -> str:
        return self.text or self.message


class Heartbeat(models.Model):
    """When a piece of periodic work last ran ("sweep": the beat's sweep), read by /readyz."""

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"


class SoloBest(models.Model):
    """A player's best score in a game's solo games with its standard options, and the first
    game that reached it: the solo leaderboard, kept as each solo game ends."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="solo_bests"
    )
    game = models.CharField(max_length=16)
    score = models.IntegerField()
    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "game"], name="one_solo_best_per_game")
        ]
        indexes = [
            models.Index(
                models.F("game"), models.F("score").desc(), models.F("player"), name="solo_board"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player}'s best {self.game} solo score"
