"""Quick pairing ("Play now"): players wait in a pool of a game, a speed and a number of
players, and are paired by rating into a real-time match that starts for all at once.

A player has at most one entry (``PoolEntry``), kept in the database: a Redis restart loses
nobody's place. Pairing (``pair``, run on every join, every poll of a waiting page and every
tick of the clock) takes the oldest entry of a pool first and adds the oldest entries whose
rating is close enough: each entry's window (``window``) widens while it waits, and two
entries fit when each one's window covers their difference. Players one of whom has blocked
the other are never paired. A group is claimed in a transaction of its own: its entries are
locked (skipping those another pairing holds), the match is made, and a conditional update
that must touch every entry still waiting sets it; else all of it is rolled back. So a
player is never in two new matches, however many pair at once.

An entry nobody has looked at for ``STALE`` is dropped (``drop_stale``): leaving the page
leaves the pool. After ``BOT_AFTER`` of waiting the player is offered a bot of about their
strength (``play_bot``). Guests play casual matches, accounts rated ones (``Rating.Pool.LIVE``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Block, Match, PoolEntry, Profile, Rating, Seat
from games.models.matches import REALTIME
from games.registry import GAMES, find_game
from games.services.match import bot_seats, lobby
from games.services.match.record import MoveRefused

#: The numbers of players a pool may have (of those the game allows).
PLAYERS = (2, 3, 4)
#: An entry without contact for this long has left its pool.
STALE = timedelta(seconds=20)
#: After waiting this long a player is offered a bot (tests shorten it).
BOT_AFTER = timedelta(seconds=30)
#: The rating difference any entry accepts at once, what it adds per second waited, the most.
WINDOW_START, WINDOW_GROWTH, WINDOW_MOST = 100.0, 25.0, 1000.0
#: The bot offered below each rating (the strongest above them all), weakest first.
BOT_LEVELS = (1400.0, 1700.0)


@dataclass(frozen=True)
class Status:
    """Where a player stands: their entry (None: in no pool), how many wait in its pool
    (them included), the seconds they have waited, the bot's strength offered ("": none
    yet) and the match they were paired in (None while they wait)."""

    entry: PoolEntry | None
    waiting: int = 0
    waited: int = 0
    bot: str = ""
    match: Match | None = None


def players_of(game: str) -> tuple[int, ...]:
    """The numbers of players ``game``'s pools offer."""
    rules = find_game(game)
    return tuple(n for n in PLAYERS if n in rules.players)


def live_match(player) -> Match | None:
    """The real-time match ``player`` is playing now, if any."""
    seat = (
        Seat.objects.filter(
            player=player,
            state=Seat.State.PLAYING,
            match__status=Match.Status.ACTIVE,
            match__time_per_move__lte=REALTIME,
        )
        .select_related("match")
        .first()
    )
    return seat.match if seat is not None else None


def join(player, game: str, speed: str, players: int, *, now: datetime | None = None) -> PoolEntry:
    """Put ``player`` in the pool of ``game`` at ``speed`` for ``players`` (in place of any
    entry they had), then pair. MoveRefused: a game, speed or number not offered, or a
    real-time match the player is still playing."""
    if game not in GAMES:
        raise MoveRefused(_("Choose a game."))
    if speed not in lobby.SPEEDS:
        raise MoveRefused(_("Choose a time per move."))
    counts = players_of(game)
    if players not in counts:
        raise MoveRefused(
            _("A real-time match of %(game)s has %(low)s to %(high)s players.")
            % {"game": find_game(game).name, "low": counts[0], "high": counts[-1]}
        )
    if bot_seats.strength_of(player):
        raise MoveRefused(_("Bots do not wait in pools."))
    now = now or timezone.now()
    guest = Profile.objects.filter(player=player, guest=True).exists()
    rating = (
        Rating.objects.filter(player=player, game=game, pool=Rating.Pool.LIVE)
        .values_list("value", flat=True)
        .first()
    )
    with transaction.atomic():
        # One change of a player's entry at a time, after any pairing that holds it: a
        # player paired a moment ago is in a live match, and cannot wait for another.
        # (No key update: a match being made for them may still refer to the row.)
        list(User.objects.select_for_update(no_key=True).filter(pk=player.pk))
        list(PoolEntry.objects.select_for_update().filter(player=player))
        if live_match(player) is not None:
            raise MoveRefused(_("Finish your real-time game first."))
        PoolEntry.objects.filter(player=player).delete()
        entry = PoolEntry.objects.create(
            player=player,
            game=game,
            speed=speed,
            players=players,
            rating=1500.0 if rating is None else rating,
            rated=not guest,
            joined=now,
            seen=now,
        )
    pair(now, pool=(game, speed, players))
    return entry


def leave(player) -> None:
    """Take ``player`` out of their pool (nothing if they are in none)."""
    PoolEntry.objects.filter(player=player).delete()


def status(player, now: datetime | None = None) -> Status:
    """Note the player's contact, pair their pool, and say where they stand."""
    now = now or timezone.now()
    PoolEntry.objects.filter(player=player).update(seen=now)
    entry = PoolEntry.objects.filter(player=player).select_related("match").first()
    if entry is None:
        return Status(None)
    if entry.match is None:
        pair(now, pool=(entry.game, entry.speed, entry.players))
        entry.refresh_from_db(fields=["match"])
    if entry.match is not None:
        return Status(entry, match=entry.match)
    waiting = _waiting(now).filter(game=entry.game, speed=entry.speed, players=entry.players)
    return Status(
        entry,
        waiting=waiting.count(),
        waited=max(0, int((now - entry.joined).total_seconds())),
        bot=bot_offered(entry, now),
    )


def bot_offered(entry: PoolEntry, now: datetime) -> str:
    """The strength of the bot ``entry``'s player is offered now ("" before ``BOT_AFTER``
    or when bots do not play the game)."""
    strengths = bot_seats.strengths(entry.game)
    if entry.match_id is not None or now - entry.joined < BOT_AFTER or not strengths:
        return ""
    level = sum(entry.rating >= bound for bound in BOT_LEVELS)
    return strengths[min(level, len(strengths) - 1)]


def play_bot(player, now: datetime | None = None) -> Match:
    """Leave the pool for a real-time match against the bot offered, at the same speed:
    casual, two players. A player paired meanwhile gets their match instead."""
    now = now or timezone.now()
    with transaction.atomic():
        entry = PoolEntry.objects.select_for_update().filter(player=player).first()
        if entry is None:
            raise MoveRefused(_("You are not waiting for a game."))
        if entry.match_id is not None:
            return Match.objects.get(pk=entry.match_id)
        strength = bot_offered(entry, now)
        if not strength:
            raise MoveRefused(_("No bot is offered yet: wait a little longer."))
        entry.delete()
        bot = bot_seats.account(strength, entry.game)
        return lobby.start_realtime([player, bot], game=entry.game, speed=entry.speed, rated=False)


def drop_stale(now: datetime | None = None) -> int:
    """Drop the entries nobody has looked at for ``STALE``; how many."""
    now = now or timezone.now()
    return PoolEntry.objects.filter(seen__lt=now - STALE).delete()[0]


def window(entry: PoolEntry, now: datetime) -> float:
    """The rating difference ``entry`` accepts now: it widens while the player waits."""
    waited = max(0.0, (now - entry.joined).total_seconds())
    return min(WINDOW_START + WINDOW_GROWTH * waited, WINDOW_MOST)


def pair(now: datetime | None = None, *, pool: tuple[str, str, int] | None = None) -> list[Match]:
    """Pair the waiting players of every pool (or of ``pool``: game, speed, players); the
    matches started."""
    now = now or timezone.now()
    waiting = _waiting(now).order_by("joined", "pk")
    if pool is not None:
        game, speed, players = pool
        waiting = waiting.filter(game=game, speed=speed, players=players)
    pools: dict[tuple[str, str, int], list[PoolEntry]] = defaultdict(list)
    entries = list(waiting)
    for entry in entries:
        pools[(entry.game, entry.speed, entry.players)].append(entry)
    apart = _blocked_pairs([entry.player_id for entry in entries])
    started = []
    for (game, speed, players), queue in pools.items():
        for group in _groups(queue, players, now, apart):
            match = _claim(group, game, speed)
            if match is not None:
                started.append(match)
    return started


def _waiting(now: datetime):
    return PoolEntry.objects.filter(match__isnull=True, seen__gte=now - STALE)


def _blocked_pairs(player_ids: list[int]) -> set[frozenset[int]]:
    if len(player_ids) < 2:
        return set()
    blocks = Block.objects.filter(blocker_id__in=player_ids, blocked_id__in=player_ids)
    return {frozenset(pair) for pair in blocks.values_list("blocker_id", "blocked_id")}


def _fit(a: PoolEntry, b: PoolEntry, now: datetime, apart: set[frozenset[int]]) -> bool:
    difference = abs(a.rating - b.rating)
    return (
        difference <= window(a, now)
        and difference <= window(b, now)
        and frozenset((a.player_id, b.player_id)) not in apart
    )


def _groups(
    queue: list[PoolEntry], size: int, now: datetime, apart: set[frozenset[int]]
) -> list[list[PoolEntry]]:
    """Groups of ``size`` entries that all fit each other, the oldest entry first, each
    filled with the oldest that fit."""
    left = list(queue)
    groups = []
    while len(left) >= size:
        first, rest = left[0], left[1:]
        group = [first]
        for entry in rest:
            if all(_fit(entry, member, now, apart) for member in group):
                group.append(entry)
                if len(group) == size:
                    break
        if len(group) == size:
            groups.append(group)
            left = [entry for entry in left if entry not in group]
        else:
            left = rest  # the oldest waits on; the others may still pair among themselves
    return groups


def _claim(group: list[PoolEntry], game: str, speed: str) -> Match | None:
    """Start the match of ``group`` if all its entries still wait (and no other pairing
    holds one of them); None otherwise, having changed nothing."""
    ids = [entry.pk for entry in group]
    skip = connection.features.has_select_for_update_skip_locked
    try:
        with transaction.atomic():
            locked = PoolEntry.objects.select_for_update(skip_locked=skip).filter(
                pk__in=ids, match__isnull=True
            )
            held = list(locked.order_by("pk").values_list("pk", "player_id"))
            if len(held) != len(ids):
                return None
            people = list(User.objects.filter(pk__in=[player for _, player in held]))
            match = lobby.start_realtime(
                people, game=game, speed=speed, rated=all(entry.rated for entry in group)
            )
            taken = PoolEntry.objects.filter(pk__in=ids, match__isnull=True).update(match=match)
            if taken != len(ids):
                raise _Lost
    except _Lost:
        return None
    return match


class _Lost(Exception):
    """An entry of a group was taken meanwhile: roll the group's match back."""
