"""Following: a player keeps an eye on others.

The followed player is told in their news (no e-mail, no push), at most once a day for the
same follower (``NOTICE_EVERY``), so that following and unfollowing in a loop does not flood
them. A player's page "Following" lists whom they follow, with each one's ratings and what
each is playing now: only the matches the reader may look at themselves
(``visibility.check_match_visible``), so that the list tells nothing a match's own page
would not. Guests follow nobody and closed accounts are followed by nobody (closing an
account ends its follows); a blocked player cannot follow the blocker, and a block ends any
following between the two (``blocks.block``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import notices, ratings
from games.models import Follow, FollowNotice, Match, Notification, Profile, Rating, Seat
from games.names import shown
from games.registry import find_game
from games.services.features import blocks
from games.services.match import bot_seats, visibility
from games.services.match.record import MoveRefused
from games.services.match.writes import notifications_of

#: Matches listed for each followed player.
PLAYING_SHOWN = 10
#: Followed players on a page of "Following".
FOLLOWED_PER_PAGE = 50
#: How long after telling a player that someone follows them a new follow by the same
#: player (after an unfollow) is not told again.
NOTICE_EVERY = timedelta(days=1)


def follow(player, other) -> bool:
    """``player`` follows ``other``, who is told in their news; False if they did already.
    MoveRefused (with the reason) for oneself, a guest, a closed account or a block."""
    if other.pk == player.pk:
        raise MoveRefused(_("You cannot follow yourself."))
    if _is_guest(player.pk):
        raise MoveRefused(_("Create an account to follow players."))
    if not other.is_active or _is_guest(other.pk):
        raise MoveRefused(_("%(player)s cannot be followed.") % {"player": shown(other.username)})
    with transaction.atomic():
        blocks.lock_pair(player.pk, other.pk)
        if blocks.blocks(player.pk, other.pk):
            raise MoveRefused(
                _("You have blocked %(player)s: unblock them to follow them.")
                % {"player": other.username}
            )
        if blocks.blocks(other.pk, player.pk):
            raise MoveRefused(
                _("%(player)s cannot be followed.") % {"player": shown(other.username)}
            )
        _follow, made = Follow.objects.get_or_create(follower=player, followed=other)
        if made and not bot_seats.strength_of(other) and _notice_due(player, other):
            told = (
                other.pk,
                None,
                gettext_noop("%(player)s follows you."),
                {"player": notices.player(player)},
            )
            Notification.objects.bulk_create(notifications_of([told]))
    return made


def _notice_due(player, other) -> bool:
    """Whether ``other`` is to be told that ``player`` follows them: not if they were told
    less than ``NOTICE_EVERY`` ago; if so, the time they are told now is kept. Called with
    the two players locked (``blocks.lock_pair``), so two follows never both tell."""
    now = timezone.now()
    notice, made = FollowNotice.objects.get_or_create(
        follower=player, followed=other, defaults={"sent_at": now}
    )
    if made:
        return True
    if notice.sent_at > now - NOTICE_EVERY:
        return False
    FollowNotice.objects.filter(pk=notice.pk).update(sent_at=now)
    return True


def unfollow(player, other) -> None:
    Follow.objects.filter(follower=player, followed=other).delete()


def follows(player, other) -> bool:
    """Whether ``player`` follows ``other``."""
    return (
        player.is_authenticated and Follow.objects.filter(follower=player, followed=other).exists()
    )


def counts(player) -> tuple[int, int]:
    """How many players follow ``player``, and how many ``player`` follows."""
    return (
        Follow.objects.filter(followed=player).count(),
        Follow.objects.filter(follower=player).count(),
    )


def _is_guest(player_id: int) -> bool:
    return Profile.objects.filter(player_id=player_id, guest=True).exists()


@dataclass
class Followed:
    """A player someone follows, as their page "Following" shows them: their ratings (a
    label, the value, whether provisional) and the matches they are playing now that the
    reader may look at."""

    player: User
    ratings: list[tuple[str, float, bool]] = field(default_factory=list)
    playing: list[Match] = field(default_factory=list)


def followed(reader):
    """The players ``reader`` follows, by name."""
    return User.objects.filter(followers__follower=reader, is_active=True).order_by("username")


def following(reader, players=None) -> list[Followed]:
    """Whom ``reader`` follows (or ``players`` of them: a page), by name, with their ratings
    and what they play now (see the module's doc): four queries however many they follow,
    and one more per match shown that needs a check of a puzzle's secrecy. The database
    sends back the PLAYING_SHOWN latest matches of each that the reader may look at
    (``visibility.watchable_where``, or their own), not every match each plays; each is
    still checked here (``visibility.check_match_visible``)."""
    players = list(followed(reader) if players is None else players)
    listed = {p.pk: Followed(p) for p in players}
    for r in Rating.objects.filter(player_id__in=listed).order_by("game", "pool"):
        listed[r.player_id].ratings.append(
            (_rating_label(r), r.value, ratings.is_provisional(r.games))
        )
    latest_first = [F("match__created").desc(), F("match_id").desc()]
    readers = Seat.objects.filter(match_id=OuterRef("match_id"), player=reader)
    seats = (
        Seat.objects.filter(
            player_id__in=listed,
            finished=None,  # the index of unfinished seats: not every seat they ever had
            match__status__in=[Match.Status.ACTIVE, Match.Status.WAITING],
        )
        .exclude(state__in=[Seat.State.RESIGNED, Seat.State.DROPPED])
        .filter(visibility.watchable_where("match__") | Exists(readers))
        .annotate(place=Window(RowNumber(), partition_by=[F("player_id")], order_by=latest_first))
        .filter(place__lte=PLAYING_SHOWN)
        .select_related("match__puzzle__tournament", "match__tournament")
        .order_by(*latest_first)
    )
    by_player: dict[int, list[Match]] = defaultdict(list)
    for seat in seats:
        by_player[seat.player_id].append(seat.match)
    shown_ids = [match.pk for matches in by_player.values() for match in matches]
    mine = Seat.objects.filter(player=reader, match_id__in=shown_ids).order_by()
    own = {s.match_id: s for s in mine}
    for player_id, matches in by_player.items():
        for match in matches:
            if len(listed[player_id].playing) >= PLAYING_SHOWN:
                break
            if _may_see(reader, match, own.get(match.pk)):
                listed[player_id].playing.append(match)
    return list(listed.values())


def _may_see(reader, match: Match, seat: Seat | None) -> bool:
    try:
        visibility.check_match_visible(reader, match, seat)
    except (Match.DoesNotExist, visibility.Hidden):
        return False
    return True


def _rating_label(rating: Rating) -> str:
    name = find_game(rating.game).name
    if rating.pool == Rating.Pool.MATCH:
        return name
    return _("%(game)s (%(pool)s)") % {"game": name, "pool": rating.get_pool_display()}
