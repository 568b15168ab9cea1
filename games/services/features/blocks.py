"""Blocking: a player keeps another away from them.

Who is blocked cannot invite the blocker, follow them, join the open seats of their matches
(nor the seats their invitation links offer) or write in a chat the blocker reads (their
messages are hidden for the blocker). Neither of the two is offered the open seats of a
match the other sits in (``apart``). Blocking ends any following between the two. It is
told to nobody; the blocked player is refused as if for any other reason where a refusal
must be given.
"""

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from games.models import Block, Follow, Match
from games.services.match.record import MoveRefused


def lock_pair(player_id: int, other_id: int) -> None:
    """Lock the two players' rows until the transaction ends (in the order of their ids, so
    that two requests never wait for each other): a block and a follow of the same two
    players happen one after the other, and neither misses the other."""
    list(User.objects.select_for_update().filter(pk__in=[player_id, other_id]).order_by("pk"))


def block(player, other) -> None:
    """``player`` blocks ``other`` (again: nothing more); neither follows the other then."""
    if other.pk == player.pk:
        raise MoveRefused(_("You cannot block yourself."))
    with transaction.atomic():
        lock_pair(player.pk, other.pk)
        try:
            with transaction.atomic():
                Block.objects.get_or_create(blocker=player, blocked=other)
        except IntegrityError:
            pass  # blocked at the same moment by another request
        Follow.objects.filter(
            Q(follower=player, followed=other) | Q(follower=other, followed=player)
        ).delete()


def unblock(player, other) -> None:
    Block.objects.filter(blocker=player, blocked=other).delete()


def blocked_ids(player) -> set[int]:
    """The players ``player`` has blocked (their messages are hidden for them)."""
    if not player.is_authenticated:
        return set()
    return set(Block.objects.filter(blocker=player).values_list("blocked_id", flat=True))


def blocked_players(player) -> list[User]:
    """The players ``player`` has blocked, by name (Settings lists them)."""
    return list(User.objects.filter(blocked_by__blocker=player).order_by("username"))


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


def apart(matches: QuerySet[Match], player) -> QuerySet[Match]:
    """Those of ``matches`` where nobody seated has blocked ``player`` or been blocked by
    them: the open seats ``player`` is offered."""
    if not player.is_authenticated:
        return matches
    return matches.exclude(seats__player__blocks__blocked=player).exclude(
        seats__player__blocked_by__blocker=player
    )


def among(player_ids: list[int]) -> bool:
    """Whether any of these players has blocked another of them (no rematch for them)."""
    return Block.objects.filter(blocker_id__in=player_ids, blocked_id__in=player_ids).exists()
