"""The only code that changes game state in the database.

Every function that changes a match locks the match row first (one lock order,
so no deadlocks), replays the match through the engine, and writes the result.
Background work (expiry, ratings) claims its rows with a conditional update and
does nothing when someone else already did it.
"""

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

from games import ratings
from games.models import Match, Move, Notification, PlayerStats, Rating, RatingChange, Seat
from games.nmbr9 import Game, IllegalPlacement, Placement

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
        self.seats: dict[int, tuple[Seat, set[str]]] = {}

    def flush(self) -> None:
        Move.objects.bulk_create(self.moves)
        Notification.objects.bulk_create(self.notifications)
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
        yield
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
            seat.move_mailed = False
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
    """
    now = now or timezone.now()
    due = Seat.objects.filter(pk__in=seat_ids, deadline__lte=now)
    match_ids = sorted(set(due.values_list("match_id", flat=True)))
    if not match_ids:
        return 0
    wanted = set(seat_ids)
    expired = 0
    with transaction.atomic(), _batched_writes():
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
            seats = seats_of[match.pk]
            game = None
            for seat in seats:
                if seat.pk not in wanted or seat.deadline is None or seat.deadline > now:
                    continue
                if match.status != Match.Status.ACTIVE:
                    break
                game = game or engine_game(match, seats, moves_of[match.pk])
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
    "move_mailed",
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
    """Give a deadline to every seat that now has a tile to place, and none to the others."""
    from games.tasks import send_move_email

    for seat in seats:
        to_move = seat.state == Seat.State.PLAYING and game.current_number(seat.index) is not None
        if not to_move:
            seat.deadline = None
        elif seat.deadline is None:
            seat.deadline = now + match.time_per_move
            _schedule(match, seat)
            if seat is not moved and not seat.move_mailed:
                seat.move_mailed = True
                _notify(seat.player_id, match, f"Your move in {match}.")
                send_move_email.delay_on_commit(seat.pk)
    _save_seats(seats)


def _schedule(match: Match, seat: Seat) -> None:
    """A new deadline: its expiry task, and the time of its reminder for the sweep."""
    from games.tasks import expire_seat

    expire_seat.apply_async_on_commit((seat.pk,), eta=seat.deadline)
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
        refresh_player_stats.delay_on_commit(seat.player_id)
    if match.puzzle_id:
        from games import puzzles

        puzzles.record_finish(match, seats)
    if match.rated:
        rate_match.delay_on_commit(match.pk)


def remind(seat_id: int, *, now: datetime | None = None) -> bool:
    """Claim the 80% reminder of a seat's current deadline; True if it should be sent."""
    now = now or timezone.now()
    return bool(
        Seat.objects.filter(
            pk=seat_id, reminded=False, remind_at__lte=now, deadline__gt=now
        ).update(reminded=True)
    )


def due_reminders(now: datetime | None = None, limit: int = 10_000) -> list[int]:
    now = now or timezone.now()
    return list(
        Seat.objects.filter(
            remind_at__lte=now,
            reminded=False,
            deadline__gt=now,
            match__status=Match.Status.ACTIVE,
        )
        .order_by("remind_at")
        .values_list("id", flat=True)[:limit]
    )


def due_seats(now: datetime | None = None, limit: int = 10_000) -> list[int]:
    now = now or timezone.now()
    return list(
        Seat.objects.filter(deadline__lte=now, match__status=Match.Status.ACTIVE)
        .order_by("deadline")
        .values_list("id", flat=True)[:limit]
    )


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
