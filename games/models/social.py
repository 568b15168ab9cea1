"""Players among themselves: whom each follows (and when each was last told of a follow)
and has blocked, and the links that invite whoever holds them to a match."""

from django.conf import settings
from django.db import models


class Block(models.Model):
    """``blocker`` blocked ``blocked``: who is blocked cannot invite the blocker, follow
    them, join their open seats or be read by them in a chat."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocked_by"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="one_block_per_pair"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="no_block_of_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class Follow(models.Model):
    """``follower`` follows ``followed``: their page "Following" shows what the followed
    player is playing and their ratings."""

    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="following"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="one_follow_per_pair"),
            models.CheckConstraint(
                condition=~models.Q(follower=models.F("followed")), name="no_follow_of_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"


class FollowNotice(models.Model):
    """When ``followed`` was last told that ``follower`` follows them: kept after an unfollow,
    so that following and unfollowing in a loop tells them once a day, not each time."""

    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follow_notices_sent"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follow_notices_got"
    )
    sent_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["follower", "followed"], name="one_follow_notice_per_pair"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.followed_id} told of {self.follower_id} at {self.sent_at}"


class InviteLink(models.Model):
    """A link that lets whoever opens it take a free seat of a match waiting for players
    (``token``: its unguessable part). It works while the match waits and has a free seat."""

    match = models.OneToOneField("Match", on_delete=models.CASCADE, related_name="invite_link")
    token = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"link to match {self.match_id}"
