"""Blocking: a player keeps another away from them.

Who is blocked cannot invite the blocker, follow them, join the open seats of their matches
or write in a chat the blocker reads (their messages are hidden for the blocker). Blocking is
told to nobody; the blocked player is refused as if for any other reason where a refusal
must be given.
"""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.models import Block
from games.services.record import MoveRefused


def block(player, other) -> None:
    """``player`` blocks ``other`` (again: nothing more)."""
    if other.pk == player.pk:
        raise MoveRefused(_("You cannot block yourself."))
    try:
        with transaction.atomic():
            Block.objects.get_or_create(blocker=player, blocked=other)
    except IntegrityError:
        pass  # blocked at the same moment by another request


def unblock(player, other) -> None:
    Block.objects.filter(blocker=player, blocked=other).delete()


def blocked_ids(player) -> set[int]:
    """The players ``player`` has blocked (their messages are hidden for them)."""
    if not player.is_authenticated:
        return set()
    return set(Block.objects.filter(blocker=player).values_list("blocked_id", flat=True))


def blocks(blocker_id: int, other_id: int) -> bool:
    """Whether the player ``blocker_id`` has blocked ``other_id``."""
    return Block.objects.filter(blocker_id=blocker_id, blocked_id=other_id).exists()


def blocking_any(player_id: int, others: list[int]) -> set[int]:
    """Those of ``others`` who have blocked ``player_id`` (they refuse its invitations and
    keep it out of their matches' open seats)."""
    return set(
        Block.objects.filter(blocked_id=player_id, blocker_id__in=others).values_list(
            "blocker_id", flat=True
        )
    )
