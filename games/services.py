"""The only code that changes game state in the database.

Every function that changes a match locks the match row first (one lock order,
so no deadlocks), replays the match through the engine, and writes the result.
Background work (expiry, ratings) claims its rows with a conditional update and
does nothing when someone else already did it.
"""

import logging
import secrets
from collections import defaultdict
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Avg, Count, Max
from django.utils import timezone

from games import queue, ratings, visibility
from games.models import (
    Match,
    Move,
    Notification,
    PlayerStats,
    Profile,
    Rating,
    RatingChange,
    Seat,
)
from games.nmbr9 import Game, IllegalPlacement, Placement

logger = logging.getLogger(__name__)

EXTENSION = timedelta(days=1)
REMIND_AT = 0.8
TIME_CONTROLS = {
    "1h": timedelta(hours=1),
    "12h": timedelta(hours=12),
    "1d": timedelta(days=1),
    "3d": timedelta(days=3),
    "7d": timedelta(days=7),
}


class MoveRefused(ValueError):
    """A request that cannot be carried out; ``str()`` says why."""


@dataclass(frozen=True, slots=True)
class GameState:
    """A stored match replayed through the engine, as seen from one seat."""

    match: Match
    seat: Seat
    game: Game

    @property
    def player(self) -> int:
        return self.seat.index


def new_seed() -> int:
    return secrets.randbelow(2**31)


def engine_game(match: Match, seats: list[Seat], moves: list[Move]) -> Game:
    """Replay a match's stored moves (in the order played) and departures."""
    index_of = {seat.pk: seat.index for seat in seats}
    return Game.replay(
        players=match.players,
        seed=match.seed,
        pace=match.pace,
        removed=match.removed,
        moves=[(index_of[m.seat_id], m.placement) for m in moves],
        resignations=[(s.index, s.left_after) for s in seats if s.left_after is not None],
    )


def _moves(match: Match) -> list[Move]:
    return list(Move.objects.filter(seat__match=match).order_by("id"))


def load_state(match: Match, seat: Seat, seats: list[Seat] | None = None) -> GameState:
    if seats is None:
        seats = list(match.seats.all())
    return GameState(match=match, seat=seat, game=engine_game(match, seats, _moves(match)))


def open_match(match_id: int, user) -> tuple[Match, list[Seat], Seat | None]:
    """A match as ``user`` may look at it: the match, its seats and the user's own seat.

    Raises Match.DoesNotExist for a match they may not know of, and
    ``visibility.Hidden`` for one that would show them a puzzle order still secret to them.
    """
    match = (
        Match.objects.select_related("puzzle").prefetch_related("seats__player").get(pk=match_id)
    )
    seats = list(match.seats.all())
    seat = next((s for s in seats if user.is_authenticated and s.player_id == user.pk), None)
    visibility.check_match_visible(user, match, seat)
    return match, seats, seat


def lock_match(match_id: int) -> tuple[Match, list[Seat]]:
    match = Match.objects.select_for_update().get(pk=match_id)
    seats = list(Seat.objects.filter(match=match).select_related("player").order_by("index"))
    for seat in seats:
        seat._stored = _seat_values(seat)
    return match, seats


def _seat_of(seats: list[Seat], player) -> Seat:
    for seat in seats:
        if seat.player_id == player.pk:
            return seat
    raise Seat.DoesNotExist


class _Writes:
    """New moves and notifications and changed seats, written together at the end."""

    def __init__(self) -> None:
        self.moves: list[Move] = []
        self.notifications: list[Notification] = []
        self.your_move: list[tuple[int, Match]] = []
        self.seats: dict[int, tuple[Seat, set[str]]] = {}

    def mark(self) -> tuple[int, int, int, set[int]]:
        """Where the writes stand now, for ``undo``."""
        return len(self.moves), len(self.notifications), len(self.your_move), set(self.seats)

    def undo(self, mark: tuple[int, int, int, set[int]]) -> None:
        """Forget every write collected since ``mark``."""
        moves, notifications, your_move, seats = mark
        del self.moves[moves:]
        del self.notifications[notifications:]
        del self.your_move[your_move:]
        for seat_id in set(self.seats) - seats:
            del self.seats[seat_id]

    def flush(self) -> None:
        Move.objects.bulk_create(self.moves)
        Notification.objects.bulk_create(self.notifications)
        _your_move_notifications(self.your_move)
        groups: dict[tuple[str, ...], list[Seat]] = defaultdict(list)
        for seat, fields in self.seats.values():
            groups[tuple(sorted(fields))].append(seat)
        for fields, seats in groups.items():
            _update_seats(seats, fields)


def _update_seats(seats: list[Seat], fields: tuple[str, ...]) -> None:
    """Write ``fields`` of many seats with one statement sent for all rows at once.

    ``executemany`` sends the rows together (psycopg pipelines them), where
    ``bulk_update`` would build a CASE expression per row and field in Python.
    """
    meta = Seat._meta
    columns = [meta.get_field(field) for field in fields]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(column.column)} = %s" for column in columns)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    rows = [
        [column.get_db_prep_save(getattr(seat, column.attname), connection) for column in columns]
        + [seat.pk]
        for seat in seats
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


_writes: ContextVar[_Writes | None] = ContextVar("writes", default=None)


@contextmanager
def _batched_writes():
    """Inside: the writes of many changes are collected, then made in a few statements."""
    writes = _Writes()
    token = _writes.set(writes)
    try:
        yield writes
    finally:
        _writes.reset(token)
    writes.flush()


def _notify(player_id: int, match: Match | None, text: str) -> None:
    notification = Notification(player_id=player_id, match=match, text=text[:200])
    writes = _writes.get()
    if writes is None:
        notification.save()
    else:
        writes.notifications.append(notification)


def _notify_your_move(player_id: int, match: Match) -> None:
    writes = _writes.get()
    if writes is None:
        _your_move_notifications([(player_id, match)])
    else:
        writes.your_move.append((player_id, match))


def _your_move_notifications(pairs: list[tuple[int, Match]]) -> None:
    """One unread "your move" per player and match: the one there is comes up to the top,
    and only a player who has none gets a new one."""
    if not pairs:
        return
    now = timezone.now()
    unread = Notification.objects.filter(kind=Notification.Kind.MOVE, read=False)
    match_ids = {match.pk for _, match in pairs}
    existing = set(unread.filter(match_id__in=match_ids).values_list("player_id", "match_id"))
    for player_id, match in pairs:
        if (player_id, match.pk) in existing:
            unread.filter(player_id=player_id, match=match).update(created=now)
    Notification.objects.bulk_create(
        Notification(
            player_id=player_id,
            match=match,
            kind=Notification.Kind.MOVE,
            text=f"Your move in {match}.",
            created=now,
        )
        for player_id, match in dict.fromkeys(pairs)
        if (player_id, match.pk) not in existing
    )


# ------------------------------------------------------------------ solo games


@transaction.atomic
def start_solo(player, *, seed: int | None = None) -> Match:
    match = Match.objects.create(
        kind=Match.Kind.SOLO,
        status=Match.Status.ACTIVE,
        seed=new_seed() if seed is None else seed,
        players=1,
        created_by=player,
        started=timezone.now(),
    )
    Seat.objects.create(match=match, player=player, index=0)
    return match


# ------------------------------------------------------------------ matches


def check_match_settings(
    creator,
    *,
    players: int,
    time_control: str,
    invite: list[str],
    open: bool,
    pace: str = Match.Pace.FREE,
    removed: int | str = 0,
) -> dict[str, User]:
    """Refuse settings a match cannot have; return the invited players by name."""
    if not 2 <= players <= 6:
        raise MoveRefused("A match has 2 to 6 players.")
    if pace not in Match.Pace.values:
        raise MoveRefused("Choose the pace: rounds or free.")
    if time_control not in TIME_CONTROLS:
        raise MoveRefused("Choose a time per move.")
    if removed != "random" and not (isinstance(removed, int) and 0 <= removed <= 4):
        raise MoveRefused("Remove 0 to 4 cards, or a random number.")
    names = list(dict.fromkeys(name.strip() for name in invite if name.strip()))
    if len(names) > players - 1:
        raise MoveRefused(f"A {players}-player match has room for {players - 1} invitations.")
    found = {u.username.lower(): u for u in User.objects.filter(username__in=names)}
    missing = [n for n in names if n.lower() not in found]
    if missing:
        raise MoveRefused(f"No player is called {missing[0]}.")
    if any(u.pk == creator.pk for u in found.values()):
        raise MoveRefused("You are already in the match; invite somebody else.")
    if not open and len(names) < players - 1:
        raise MoveRefused("Invite a player for every seat, or open the match in the lobby.")
    return {name: found[name.lower()] for name in names}


def create_match(
    creator,
    *,
    players: int,
    pace: str,
    time_control: str,
    rated: bool,
    removed: int | str = 0,
    invite: list[str] = (),
    open: bool = False,
    seed: int | None = None,
    puzzle=None,
) -> Match:
    """A match waiting for its seats: the creator's, invited players', open ones.

    With a ``puzzle`` it is a challenge: everybody plays that puzzle's deal, in free pace.
    """
    invited = check_match_settings(
        creator,
        players=players,
        time_control=time_control,
        invite=invite,
        open=open,
        pace=pace,
        removed=removed,
    )
    names = list(invited)
    if puzzle is not None:
        seed, pace, removed = puzzle.seed, Match.Pace.FREE, 0
    seed = new_seed() if seed is None else seed
    if removed == "random":
        removed = Game(1, seed=seed, removed="random").removed
    with transaction.atomic():
        match = Match.objects.create(
            kind=Match.Kind.MATCH if puzzle is None else Match.Kind.CHALLENGE,
            puzzle=puzzle,
            status=Match.Status.WAITING,
            seed=seed,
            players=players,
            pace=pace,
            removed=removed,
            rated=rated,
            open=open,
            time_per_move=TIME_CONTROLS[time_control],
            created_by=creator,
        )
        Seat.objects.create(match=match, player=creator, index=0)
        for index, name in enumerate(names, start=1):
            user = invited[name]
            Seat.objects.create(match=match, player=user, index=index, state=Seat.State.INVITED)
            _notify(user.pk, match, f"{creator.username} invites you to a {players}-player match.")
    return match


def join(match_id: int, player) -> Match:
    """Take an open seat, or accept an invitation; the match starts when every seat is taken."""
    with transaction.atomic():
        match, seats = lock_match(match_id)
        if match.status != Match.Status.WAITING:
            raise MoveRefused("This match is not waiting for players.")
        mine = next((s for s in seats if s.player_id == player.pk), None)
        if mine is not None:
            if mine.state != Seat.State.INVITED:
                raise MoveRefused("You are already in this match.")
            mine.state = Seat.State.PLAYING
            mine.save(update_fields=["state"])
        else:
            if not match.open or len(seats) >= match.players:
                raise MoveRefused("This match has no free seat.")
            seats.append(Seat.objects.create(match=match, player=player, index=len(seats)))
        if len(seats) == match.players and all(s.state == Seat.State.PLAYING for s in seats):
            _start(match, seats)
    return match


def decline(match_id: int, player) -> None:
    """An invited player says no: the match is called off."""
    with transaction.atomic():
        match, seats = lock_match(match_id)
        seat = _seat_of(seats, player)
        if match.status != Match.Status.WAITING or seat.state != Seat.State.INVITED:
            raise MoveRefused("There is no invitation of yours to decline here.")
        cancel_match(match, seats, f"{player.username} declined the match.")


def cancel(match_id: int, player) -> None:
    with transaction.atomic():
        match, seats = lock_match(match_id)
        if match.created_by_id != player.pk:
            raise MoveRefused("Only the player who created the match can cancel it.")
        if match.status != Match.Status.WAITING:
            raise MoveRefused("The match has started; resign instead.")
        cancel_match(match, seats, f"{player.username} cancelled the match.")


def cancel_match(match: Match, seats: list[Seat], text: str) -> None:
    match.status = Match.Status.CANCELLED
    match.finished = timezone.now()
    match.save(update_fields=["status", "finished"])
    for seat in seats:
        _notify(seat.player_id, match, text)


def _start(match: Match, seats: list[Seat]) -> None:
    now = timezone.now()
    match.status = Match.Status.ACTIVE
    match.started = now
    match.save(update_fields=["status", "started"])
    moves = [place_start_tile(match, seat) for seat in seats] if match.puzzle_id else []
    game = engine_game(match, seats, moves)
    _update_deadlines(match, seats, game, now)


def place_start_tile(match: Match, seat: Seat) -> Move:
    """A puzzle's first tile lies in the centre of every display before play starts."""
    start = match.puzzle.start_placement
    seat.placed = 1
    return Move.objects.create(
        seat=seat,
        round=1,
        number=start.number,
        x=start.x,
        y=start.y,
        rotation=start.rotation,
        level=0,
    )


# ------------------------------------------------------------------ playing


def place(match_id: int, player, *, x: int, y: int, rotation: int, round: int) -> GameState:
    """Place the player's current tile at (x, y, rotation) for ``round``; return the new state.

    ``round`` is the round the player saw when they confirmed. If that round's tile
    is already placed (a double submit), that is accepted when it is the same
    placement, and refused otherwise; nothing changes either way. Raises
    ``Seat.DoesNotExist`` when ``player`` has no seat in the match.
    """
    try:
        with transaction.atomic():
            match, seats = lock_match(match_id)
            seat = _seat_of(seats, player)
            if round <= seat.placed:
                _check_already_placed(seat, round, x=x, y=y, rotation=rotation)
                return load_state(match, seat, seats)
            if match.status == Match.Status.FINISHED:
                raise MoveRefused("This game is over.")
            if match.status != Match.Status.ACTIVE:
                raise MoveRefused("This match has not started.")
            if seat.has_left:
                raise MoveRefused("You have left this match.")
            if round != seat.placed + 1:
                raise MoveRefused(f"Round {round} has not started yet.")
            game = engine_game(match, seats, _moves(match))
            number = game.current_number(seat.index)
            if number is None:
                raise MoveRefused("Wait for the other players to finish this round.")
            placement = Placement(number=number, x=x, y=y, rotation=rotation)
            try:
                level = game.place(seat.index, placement)
            except IllegalPlacement as exc:
                raise MoveRefused(exc.reason) from None
            _record_move(seat, game, placement, level)
            seat.strikes = 0
            seat.mail_at = None
            seat.mail_reminder = False
            _after_change(match, seats, game, moved=seat)
            return GameState(match=match, seat=seat, game=game)
    except IntegrityError:
        seat = Seat.objects.select_related("match").get(match_id=match_id, player=player)
        _check_already_placed(seat, round, x=x, y=y, rotation=rotation)
        return load_state(seat.match, seat)


def _check_already_placed(seat: Seat, round: int, *, x: int, y: int, rotation: int) -> None:
    move = Move.objects.get(seat=seat, round=round)
    if (move.x, move.y, move.rotation) != (x, y, rotation):
        raise MoveRefused(f"The tile of round {round} is already placed.")


def _record_move(seat: Seat, game: Game, placement: Placement, level: int) -> None:
    seat.placed += 1
    move = Move(
        seat=seat,
        round=seat.placed,
        number=placement.number,
        x=placement.x,
        y=placement.y,
        rotation=placement.rotation,
        level=level,
    )
    writes = _writes.get()
    if writes is None:
        move.save()
    else:
        writes.moves.append(move)
    seat.score = game.board(seat.index).score()


def expire(seat_id: int, *, now: datetime | None = None) -> bool:
    """Play the fallback tile for a seat whose deadline has passed; False if there is none."""
    return expire_many([seat_id], now=now) == 1


def expire_many(seat_ids: list[int], *, now: datetime | None = None) -> int:
    """Play the fallback tile for each of these seats whose deadline has passed; how many.

    One transaction for them all: their matches are locked in id order (so runs that
    overlap never deadlock) and read after the locks are held. A seat's deadline is
    only ever changed under its match's lock, and is cleared when its tile is placed, so
    running this any number of times, or alongside the player's own move, acts once.

    A match whose expiry fails is logged and skipped (its savepoint rolled back) and the
    others go on; should writing the batch fail, its seats are expired one at a time.
    """
    now = now or timezone.now()
    try:
        return _expire_batch(seat_ids, now)
    except Exception:
        if len(seat_ids) <= 1:
            logger.exception("expiring seat %s failed", seat_ids)
            return 0
        logger.exception("expiring %d seats together failed: one at a time", len(seat_ids))
        return sum(expire_many([seat_id], now=now) for seat_id in seat_ids)


def _expire_batch(seat_ids: list[int], now: datetime) -> int:
    due = Seat.objects.filter(pk__in=seat_ids, deadline__lte=now)
    match_ids = sorted(set(due.values_list("match_id", flat=True)))
    if not match_ids:
        return 0
    wanted = set(seat_ids)
    expired = 0
    with transaction.atomic(), _batched_writes() as writes:
        matches = list(
            Match.objects.select_for_update()
            .filter(pk__in=match_ids, status=Match.Status.ACTIVE)
            .order_by("pk")
        )
        seats_of: dict[int, list[Seat]] = defaultdict(list)
        match_of: dict[int, int] = {}
        for seat in (
            Seat.objects.filter(match__in=matches)
            .select_related("player")
            .order_by("match_id", "index")
        ):
            seat._stored = _seat_values(seat)
            seats_of[seat.match_id].append(seat)
            match_of[seat.pk] = seat.match_id
        moves_of: dict[int, list[Move]] = defaultdict(list)
        for move in Move.objects.filter(seat__match__in=matches).order_by("id"):
            moves_of[match_of[move.seat_id]].append(move)
        for match in matches:
            mark = writes.mark()
            try:
                with transaction.atomic():
                    expired += _expire_match(
                        match, seats_of[match.pk], moves_of[match.pk], wanted, now
                    )
            except Exception:
                logger.exception("expiry in match %s failed; its seats are skipped", match.pk)
                writes.undo(mark)
    return expired


def _expire_match(
    match: Match, seats: list[Seat], moves: list[Move], wanted: set[int], now: datetime
) -> int:
    game = None
    expired = 0
    for seat in seats:
        if seat.pk not in wanted or seat.deadline is None or seat.deadline > now:
            continue
        if match.status != Match.Status.ACTIVE:
            break
        game = game or engine_game(match, seats, moves)
        expired += _expire_seat(match, seats, game, seat, now)
    return expired


def _expire_seat(match: Match, seats: list[Seat], game: Game, seat: Seat, now: datetime) -> bool:
    seat.deadline = None
    if game.current_number(seat.index) is None:
        _after_change(match, seats, game, now=now)
        return False
    placement = game.fallback(seat.index)
    level = game.place(seat.index, placement)
    _record_move(seat, game, placement, level)
    seat.strikes += 1
    seat.total_strikes += 1
    if seat.strikes < 2:
        text = "Your time ran out: a tile was placed for you (one strike)."
    elif game.finished(seat.index):
        text = "Your time ran out again: your last tile was placed for you, and your score stands."
    else:
        _leave(seat, game, Seat.State.DROPPED)
        text = "You missed two moves in a row and were dropped from the match."
    _notify(seat.player_id, match, text)
    _after_change(match, seats, game, now=now, moved=seat)
    return True


def resign(match_id: int, player) -> None:
    with transaction.atomic():
        match, seats = lock_match(match_id)
        seat = _seat_of(seats, player)
        if match.status != Match.Status.ACTIVE or seat.has_left:
            raise MoveRefused("You can only resign from a match you are playing.")
        game = engine_game(match, seats, _moves(match))
        if game.finished(seat.index):
            raise MoveRefused("You have placed all your tiles: your score stands.")
        _leave(seat, game, Seat.State.RESIGNED)
        for other in seats:
            if other.pk != seat.pk:
                _notify(other.player_id, match, f"{player.username} resigned.")
        _after_change(match, seats, game, moved=seat)


def _leave(seat: Seat, game: Game, state: str) -> None:
    seat.state = state
    seat.left_after = len(game.moves)
    seat.deadline = None
    game.resign(seat.index)


def extend(match_id: int, player) -> datetime:
    """Push the player's own deadline back by a day (a limited number of times)."""
    with transaction.atomic():
        match, seats = lock_match(match_id)
        seat = _seat_of(seats, player)
        if seat.deadline is None or match.status != Match.Status.ACTIVE:
            raise MoveRefused("You have no running deadline to extend.")
        if seat.extensions_left == 0:
            raise MoveRefused("You have used all your extensions in this match.")
        seat.deadline += EXTENSION
        seat.extensions_left -= 1
        _schedule(match, seat)
        seat.save(update_fields=["deadline", "extensions_left", "reminded", "remind_at"])
        return seat.deadline


def _after_change(
    match: Match,
    seats: list[Seat],
    game: Game,
    *,
    now: datetime | None = None,
    moved: Seat | None = None,
) -> None:
    if game.is_over():
        _finish(match, seats, game)
    elif not match.is_solo:
        if moved is not None:
            moved.deadline = None
        _update_deadlines(match, seats, game, now or timezone.now(), moved=moved)
    else:
        moved.save(update_fields=["placed", "score"])


SEAT_FIELDS = [
    "state",
    "placed",
    "score",
    "rank",
    "deadline",
    "strikes",
    "total_strikes",
    "reminded",
    "remind_at",
    "mail_at",
    "mail_reminder",
    "left_after",
]


def _seat_values(seat: Seat) -> dict:
    return {field: getattr(seat, field) for field in SEAT_FIELDS}


def _save_seats(seats: list[Seat]) -> None:
    """Write the fields of each seat that changed since ``lock_match`` read it."""
    for seat in seats:
        values = _seat_values(seat)
        stored = getattr(seat, "_stored", {})
        changed = [field for field, value in values.items() if stored.get(field, seat) != value]
        writes = _writes.get()
        if changed and writes is None:
            seat.save(update_fields=changed)
        elif changed:
            writes.seats.setdefault(seat.pk, (seat, set()))[1].update(changed)
        seat._stored = values


def _update_deadlines(
    match: Match, seats: list[Seat], game: Game, now: datetime, *, moved: Seat | None = None
) -> None:
    """Give a deadline to every seat that now has a tile to place, and none to the others.

    A player who is to move and did not just move hears of it: their "your move"
    notification comes up to date, and an e-mail becomes due (``notifications`` decides
    whether to send it). The sweep enforces the deadline: nothing waits in the broker.
    """
    for seat in seats:
        to_move = seat.state == Seat.State.PLAYING and game.current_number(seat.index) is not None
        if not to_move:
            seat.deadline = None
        elif seat.deadline is None:
            seat.deadline = now + match.time_per_move
            _schedule(match, seat)
            if seat is not moved:
                _notify_your_move(seat.player_id, match)
                if not seat.mail_reminder:
                    seat.mail_at = now
    _save_seats(seats)


def _schedule(match: Match, seat: Seat) -> None:
    """A new deadline: the time of its 80% reminder, which the sweep sends."""
    seat.remind_at = seat.deadline - match.time_per_move * (1 - REMIND_AT)
    seat.reminded = False


def _finish(match: Match, seats: list[Seat], game: Game) -> None:
    from games.tasks import rate_match, refresh_player_stats

    outcome = game.outcome()
    for seat in seats:
        seat.score = outcome.scores[seat.index]
        seat.rank = outcome.ranks[seat.index]
        seat.deadline = None
    _save_seats(seats)
    match.status = Match.Status.FINISHED
    match.finished = timezone.now()
    match.save(update_fields=["status", "finished"])
    for seat in seats:
        if not match.is_solo:
            _notify(seat.player_id, match, f"{match} is over: you finished #{seat.rank}.")
        queue.send(refresh_player_stats, seat.player_id)
    if match.puzzle_id:
        from games import puzzles

        puzzles.record_finish(match, seats)
    if match.rated:
        queue.send(rate_match, match.pk)


def remind(seat_id: int, *, now: datetime | None = None) -> bool:
    """The 80% reminder of a seat's current deadline, once: a notification, and its e-mail
    made due. False if it is not due or already done."""
    now = now or timezone.now()
    with transaction.atomic():
        claimed = Seat.objects.filter(
            pk=seat_id, reminded=False, remind_at__lte=now, deadline__gt=now
        ).update(reminded=True, mail_at=now, mail_reminder=True)
        if claimed:
            seat = Seat.objects.select_related("match").get(pk=seat_id)
            _notify(seat.player_id, seat.match, f"Time is running out in {seat.match}.")
    return bool(claimed)


def seen(match: Match, seat: Seat | None) -> None:
    """The player of ``seat`` has the match in front of them: its "your move" notification
    is read, and no e-mail about it is due any more."""
    if seat is None or match.is_solo:
        return
    Notification.objects.filter(
        player_id=seat.player_id, match=match, kind=Notification.Kind.MOVE, read=False
    ).update(read=True)
    if seat.mail_at is not None:
        Seat.objects.filter(pk=seat.pk).update(mail_at=None, mail_reminder=False)
        seat.mail_at, seat.mail_reminder = None, False


# ------------------------------------------------------------------ ratings


def rate_match(match_id: int) -> bool:
    """Apply a finished rated match's Elo changes, exactly once whatever the retries."""
    with transaction.atomic():
        claimed = Match.objects.filter(
            pk=match_id, status=Match.Status.FINISHED, rated=True, rated_at=None
        ).update(rated_at=timezone.now())
        if not claimed:
            return False
        seats = list(Seat.objects.filter(match_id=match_id).order_by("player_id"))
        kind = Match.objects.values_list("kind", flat=True).get(pk=match_id)
        pool = Rating.Pool.PUZZLE if kind == Match.Kind.CHALLENGE else Rating.Pool.MATCH
        for seat in seats:
            Rating.objects.get_or_create(player_id=seat.player_id, pool=pool)
        by_player = {
            r.player_id: r
            for r in Rating.objects.select_for_update()
            .filter(player_id__in=[s.player_id for s in seats], pool=pool)
            .order_by("player_id")
        }
        current = [by_player[s.player_id] for s in seats]
        after = ratings.new_ratings(
            [r.value for r in current],
            [s.rank for s in seats],
            [ratings.k_factor(r.games) for r in current],
        )
        for seat, rating, value in zip(seats, current, after, strict=True):
            RatingChange.objects.create(
                match_id=match_id,
                player_id=seat.player_id,
                pool=pool,
                before=rating.value,
                after=value,
            )
            rating.value = value
            rating.games += 1
            rating.wins += seat.rank == 1
            rating.save(update_fields=["value", "games", "wins", "updated"])
    return True


# ------------------------------------------------------------------ profiles


def touch(player, *, now: datetime | None = None) -> None:
    """Note that ``player`` is on the site now (e-mails wait while they are)."""
    now = now or timezone.now()
    if not Profile.objects.filter(player=player).update(last_seen=now):
        Profile.objects.get_or_create(player=player, defaults={"last_seen": now})


def personal_best(player) -> int | None:
    return Seat.objects.filter(
        player=player, match__kind=Match.Kind.SOLO, match__status=Match.Status.FINISHED
    ).aggregate(best=Max("score"))["best"]


def refresh_player_stats(player_id: int) -> PlayerStats:
    """Recompute a player's profile figures from their finished games (safe to repeat)."""
    figures = Seat.objects.filter(
        player_id=player_id, match__kind=Match.Kind.SOLO, match__status=Match.Status.FINISHED
    ).aggregate(games=Count("id"), best=Max("score"), average=Avg("score"))
    stats, _ = PlayerStats.objects.update_or_create(
        player_id=player_id,
        defaults={
            "solo_games": figures["games"],
            "solo_best": figures["best"],
            "solo_average": figures["average"],
        },
    )
    return stats
