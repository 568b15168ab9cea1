"""What is said in matches and tournaments and what is done about it: chat messages, the
chats a player muted, staff bans from writing, and players' reports to the staff."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models.matches import Match
from games.models.tournaments import Tournament

#: The longest message; the longest note a report may add.
MESSAGE_LENGTH = 300
REPORT_LENGTH = 500


class ChatMessage(models.Model):
    """A message written in a match's chat, in one of its two rooms (the players' or the
    spectators'), or in a tournament's (its entrants' room). Kept with the match or the
    tournament (its author's name follows the account: a closed account's messages stay,
    under "closed account N"); a message the staff removed is kept for them and shown to
    players as removed."""

    class Room(models.TextChoices):
        PLAYERS = "players", _("Players")
        SPECTATORS = "spectators", _("Spectators")
        ENTRANTS = "entrants", _("Entrants")

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, null=True, blank=True, related_name="chat_messages"
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, null=True, blank=True, related_name="chat_messages"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    room = models.CharField(max_length=10, choices=Room.choices)
    text = models.CharField(max_length=MESSAGE_LENGTH)
    created = models.DateTimeField(default=timezone.now)
    removed = models.DateTimeField(
        null=True, blank=True, help_text="When a member of the staff removed it."
    )
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["created", "id"]
        indexes = [
            models.Index(fields=["match", "room", "created"], name="chat_room_order"),
            models.Index(
                fields=["tournament", "created"],
                condition=models.Q(tournament__isnull=False),
                name="tournament_chat_order",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(match__isnull=True) ^ models.Q(tournament__isnull=True),
                name="chat_of_a_match_or_a_tournament",
            )
        ]

    def __str__(self) -> str:
        where = self.match_id or f"tournament {self.tournament_id}"
        return f"{self.author} in {where} ({self.room}): {self.text[:40]}"


class ChatMute(models.Model):
    """``player`` muted the chat of ``match`` (or of ``tournament``): it is not shown to
    them."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes"
    )
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, null=True, blank=True, related_name="chat_mutes"
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, null=True, blank=True, related_name="chat_mutes"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "match"], name="one_chat_mute_per_match"),
            models.UniqueConstraint(
                fields=["player", "tournament"], name="one_chat_mute_per_tournament"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} muted the chat of {self.match_id or self.tournament_id}"


class ChatBan(models.Model):
    """The staff keeps ``player`` from writing in any chat until ``until``."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_bans"
    )
    until = models.DateTimeField(db_index=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The member of the staff who decided it.",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-until"]

    def __str__(self) -> str:
        return f"{self.player} may not chat until {self.until:%Y-%m-%d %H:%M}"


class Report(models.Model):
    """A player tells the staff about another player, or one of their messages."""

    class Reason(models.TextChoices):
        INSULTS = "insults", _("Insults or harassment")
        SPAM = "spam", _("Spam")
        CHEATING = "cheating", _("Cheating")
        OTHER = "other", _("Something else")

    class Outcome(models.TextChoices):
        REMOVED = "removed", _("Message removed")
        BANNED = "banned", _("Chat muted")
        CLOSED = "closed", _("Account closed")
        NOTHING = "nothing", _("Nothing to do")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_against"
    )
    message = models.ForeignKey(
        ChatMessage, on_delete=models.SET_NULL, null=True, blank=True, related_name="reports"
    )
    reason = models.CharField(max_length=10, choices=Reason.choices)
    text = models.CharField(max_length=REPORT_LENGTH, blank=True)
    created = models.DateTimeField(default=timezone.now)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    handled_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True)

    class Meta:
        ordering = [models.F("handled_at").asc(nulls_first=True), "-created", "-id"]
        indexes = [
            models.Index(
                fields=["created"],
                condition=models.Q(handled_at__isnull=True),
                name="reports_to_handle",
            )
        ]

    def __str__(self) -> str:
        return f"report {self.pk} on {self.reported}"
