"""Who owes a move and until when; what happens when the time is up; the 80% reminder.

After every change a match is *settled*: the moves players asked to have made for them are
made (an offer always passed, the rest of a turn whose time ran out), the seats' progress and
scores are brought up to date, the match is finished if its game is over, and every player
who owes a decision (``Rules.to_move``) has a deadline for it. A new decision
(``Rules.turn`` changes) gets a new deadline of ``Rules.due`` of the match's time per move;
moves that continue a decision keep its deadline.

When a deadline passes, the sweep (``games.infra.sweep``) sends the seat here: its game's fallback
(``Rules.auto_move``, keeping what the player committed to: ``commitments.auto_move``) is played
until the decision is made, and the player gets a strike
when the game says missing it is one; two strikes in a row and the player is dropped.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from games.contract import LEAVE, IllegalMove, Outcome, StandingRules
from games.infra import metrics
from games.models import Match, Seat
from games.services.match import bot_seats, bus, finish, unit
from games.services.match.commitments import auto_move
from games.services.match.record import Record

logger = logging.getLogger(__name__)

REMIND_AT = 0.8
#: More automatic moves than this in one go is a bug in a game, not a long turn.
AUTOMATIC_LIMIT = 1000


def settle(change: unit.Change, now: datetime, *, moved: Seat | None = None) -> None:
    """Bring the match up to date after a change (``moved``: the seat that just moved, by
    its player or as its time ran out)."""
    record = change.record
    owed = {seat.pk: seat.deadline is not None for seat in record.seats}
    played = moved if moved is not None and not moved.overdue else None
    _automatic_moves(change)
    rules, state = record.rules, record.state
    for seat in record.seats:
        if seat.state in (Seat.State.PLAYING, Seat.State.RESIGNED, Seat.State.DROPPED):
            seat.progress = rules.progress(state, seat.index)
            seat.score = rules.score(state, seat.index)
    outcome = rules.outcome(state) or _alone(record)
    if outcome is not None:
        finish.finish(change, outcome, now)
    elif (per_move := record.match.time_per_move) is not None:
        _deadlines(change, now, moved, per_move)
    else:
        _owed_without_deadlines(record)
    bot_seats.settle(change, now, moved)
    if record.match.time_per_move is not None:
        # A decision owed is over once it is made (by the player, even when the next one is
        # theirs at once: they have the match in front of them), once the match is over or
        # they are out of it.
        for seat in record.seats:
            ended = seat.deadline is None and (owed[seat.pk] or seat is moved)
            if not seat.bot and (ended or seat is played):
                change.emit(bus.TurnEnded(record.match, seat))


def _alone(record: Record) -> Outcome | None:
    """The end of a match with fewer than two players still in it: the one still playing
    wins, those who left share the last place. Solo games and puzzle challenges (whose
    remaining player's puzzle stays a secret until they finish it) play on."""
    seats = record.seats
    if record.match.kind != Match.Kind.MATCH or len(seats) < 2:
        return None
    left = frozenset(seat.index for seat in seats if seat.has_left)
    if len(seats) - len(left) >= 2:
        return None
    rules, state = record.rules, record.state
    scores = [0] * len(seats)
    ranks = [0] * len(seats)
    for seat in seats:
        scores[seat.index] = rules.score(state, seat.index)
        ranks[seat.index] = len(seats) - len(left) + 1 if seat.index in left else 1
    return Outcome(scores=tuple(scores), ranks=tuple(ranks), left=left)


def _automatic_moves(change: unit.Change) -> None:
    """Make the moves nobody has to wait for: the rest of a decision whose time ran out,
    and the answers a player chose to give always (``standing_move``, if the game has it)."""
    record = change.record
    rules = record.rules
    standing = rules.standing_move if isinstance(rules, StandingRules) else None

    def waiting(seat: Seat) -> bool:
        overdue = seat.overdue and seat.turn == rules.turn(record.state, seat.index)
        return overdue or (standing is not None and bool(seat.prefs))

    if not any(seat.state == Seat.State.PLAYING and waiting(seat) for seat in record.seats):
        return
    for _ in range(AUTOMATIC_LIMIT):
        to_move = rules.to_move(record.state)
        for seat in record.seats:
            if seat.state != Seat.State.PLAYING or seat.index not in to_move:
                continue
            move = None
            timed_out = seat.overdue and seat.turn == rules.turn(record.state, seat.index)
            if timed_out:
                move = auto_move(record, seat)
            elif standing is not None and seat.prefs:
                move = standing(record.state, seat.index, seat.prefs)
            if move is not None:
                record.state = rules.apply(record.state, seat.index, move)
                change.move(seat, str(move), auto=True, timed_out=timed_out)
                break
        else:
            return
    raise RuntimeError(f"match {record.match.pk}: the game never stops moving by itself")


def _deadlines(change: unit.Change, now: datetime, moved: Seat | None, per_move: timedelta) -> None:
    record = change.record
    rules, state, match = record.rules, record.state, record.match
    to_move = rules.to_move(state)
    for seat in record.seats:
        if seat.bot or seat.state != Seat.State.PLAYING or seat.index not in to_move:
            seat.deadline = None  # a bot has no deadline: its moves are sent (bots.settle)
            continue
        turn = rules.turn(state, seat.index)
        if seat.deadline is not None and seat.turn == turn:
            continue  # the same decision goes on
        timed_out = seat.overdue
        due = rules.due(state, seat.index)
        # A game's least time for a decision never exceeds a whole move's time: a real-time
        # match's offer of a discard takes seconds, not the ten minutes it has by post.
        least = min(timedelta(seconds=due.minimum_seconds), per_move)
        length = max(per_move * due.share, least)
        deadline = now + length
        seat.deadline = deadline
        seat.turn = turn
        seat.strike = due.strike
        seat.overdue = False
        # A player at a real-time match is in front of it: no reminder.
        seat.remind_at = None if match.realtime else deadline - length * (1 - REMIND_AT)
        seat.reminded = False
        change.emit(bus.TurnStarted(match, seat, deadline, seat is moved, timed_out))


def _owed_without_deadlines(record: Record) -> None:
    """A match with no time limit (a game against a bot) has no deadlines: a player's seat
    notes the decision they owe in it (``turn``, None when they owe none), so that the lists
    of matches waiting for their move find it."""
    rules, state = record.rules, record.state
    to_move = rules.to_move(state)
    for seat in record.seats:
        owes = not seat.bot and seat.state == Seat.State.PLAYING and seat.index in to_move
        seat.turn = rules.turn(state, seat.index) if owes else None


def expire(seat_id: int, *, now: datetime | None = None) -> bool:
    """Make the moves of a seat whose deadline has passed; False if there is none."""
    return expire_many([seat_id], now=now) == 1


def expire_many(seat_ids: list[int], *, now: datetime | None = None) -> int:
    """Make the moves of each of these seats whose deadline has passed; how many.

    One change of all their matches (``unit.each``: locked in id order, so that runs that
    overlap never deadlock). A seat's deadline is only ever changed under its match's lock,
    and is cleared when its decision is made, so running this any number of times, or
    alongside the player's own move, acts once.

    A match whose expiry fails is logged and skipped (its writes forgotten) and the others
    go on; should writing the batch fail, its seats are expired one at a time.
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
    match_ids = set(due.values_list("match_id", flat=True))
    if not match_ids:
        return 0
    wanted = set(seat_ids)

    def expire_seats(change: unit.Change) -> int:
        seats = [seat for seat in change.record.seats if seat.pk in wanted]
        return sum(_expire_seat(change, seat, now) for seat in seats)

    return unit.each(match_ids, expire_seats, failed="expiry in match %s")


def expire_if_overdue(change: unit.Change, seat: Seat, now: datetime) -> bool:
    """For a player acting on a locked match after their deadline, before the sweep has got
    to it: make the seat's moves as the sweep would, in the change; whether it was due."""
    if seat.deadline is None or seat.deadline > now:
        return False
    _expire_seat(change, seat, now)
    return True


def _expire_seat(change: unit.Change, seat: Seat, now: datetime) -> bool:
    record = change.record
    if record.match.status != Match.Status.ACTIVE:
        return False
    if seat.deadline is None or seat.deadline > now or seat.state != Seat.State.PLAYING:
        return False
    rules = record.rules
    turn = seat.turn
    made = 0
    while (
        seat.index in rules.to_move(record.state) and rules.turn(record.state, seat.index) == turn
    ):
        move = auto_move(record, seat)
        record.state = rules.apply(record.state, seat.index, move)
        change.move(seat, str(move), timed_out=True)
        made += 1
        if made > AUTOMATIC_LIMIT:
            raise RuntimeError(f"match {record.match.pk}: the fallback never ends the decision")
    metrics.EXPIRY_LATENESS.labels(speed="realtime" if record.match.realtime else "other").observe(
        max(0.0, (timezone.now() - seat.deadline).total_seconds())
    )
    seat.deadline = None
    seat.overdue = True
    if made:
        strike = ""
        if seat.strike:
            seat.strikes += 1
            seat.total_strikes += 1
            strike = "one" if seat.strikes < 2 else _second_strike(change, seat)
        change.emit(bus.SeatExpired(record.match, seat, strike))
    settle(change, now, moved=seat)
    return bool(made)


def _second_strike(change: unit.Change, seat: Seat) -> str:
    """A second strike in a row: the player is dropped, unless they have made all their
    moves (their score stands); which of the two."""
    record = change.record
    try:
        record.state = record.rules.leave(record.state, seat.index)
    except IllegalMove:
        return "stands"
    _drop(change, seat)
    _abandoned(change)
    return "dropped"


def _drop(change: unit.Change, seat: Seat) -> None:
    change.move(seat, LEAVE)
    seat.state = Seat.State.DROPPED
    change.emit(bus.PlayerLeft(change.record.match, seat, False, seat.player.username))


def _abandoned(change: unit.Change) -> None:
    """A player was just dropped for missing their moves: if every player still in the match
    missed their last decision too, nobody is there to win it. They are all dropped with it
    and the match is not rated (docs/rules.md, "Everybody gone")."""
    record = change.record
    if record.match.kind != Match.Kind.MATCH:
        return
    absent = [seat for seat in record.seats if seat.state == Seat.State.PLAYING]
    if not absent or any(seat.strikes == 0 or seat.bot for seat in absent):
        return
    for seat in absent:
        try:
            record.state = record.rules.leave(record.state, seat.index)
        except IllegalMove:
            continue  # they have made all their moves: their score stands
        _drop(change, seat)
    if record.match.rated:
        record.match.rated = False
        change.save_match("rated")


def remind(seat_id: int, *, now: datetime | None = None) -> bool:
    """The 80% reminder of a seat's current deadline, once: a notification, a push to the
    player's devices, and its e-mail made due (``subscribers``). False if it is not due or
    already done."""
    now = now or timezone.now()
    match_id = (
        _reminder_due(Seat.objects.filter(pk=seat_id), now)
        .values_list("match_id", flat=True)
        .first()
    )
    if match_id is None:
        return False
    with unit.change(match_id) as change:
        seat = next((s for s in change.record.seats if s.pk == seat_id), None)
        if (
            seat is None
            or seat.reminded
            or seat.deadline is None
            or seat.remind_at is None
            or not seat.remind_at <= now < seat.deadline
        ):
            return False
        seat.reminded = True
        change.emit(bus.Reminded(change.match, seat))
    return True


def _reminder_due(seats, now: datetime):
    return seats.filter(reminded=False, remind_at__lte=now, deadline__gt=now)
