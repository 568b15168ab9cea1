"""Who owes a move and until when; what happens when the time is up; the 80% reminder.

After every change a match is *settled*: the moves players asked to have made for them are
made (an offer always passed, the rest of a turn whose time ran out), the seats' progress and
scores are brought up to date, the match is finished if its game is over, and every player
who owes a decision (``Rules.to_move``) has a deadline for it. A new decision
(``Rules.turn`` changes) gets a new deadline of ``Rules.due`` of the match's time per move;
moves that continue a decision keep its deadline.

When a deadline passes, the sweep (``games.sweep``) sends the seat here: its game's fallback
(``Rules.auto_move``, keeping what the player committed to: ``commitments.auto_move``) is played
until the decision is made, and the player gets a strike
when the game says missing it is one; two strikes in a row and the player is dropped.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from games.contract import LEAVE, IllegalMove
from games.models import Match, Move, Seat
from games.services import bots, finish, pushes
from games.services.changes import Changes, track
from games.services.commitments import auto_move
from games.services.record import Record, replay

logger = logging.getLogger(__name__)

REMIND_AT = 0.8
#: More automatic moves than this in one go is a bug in a game, not a long turn.
AUTOMATIC_LIMIT = 1000


def settle(record: Record, changes: Changes, now: datetime, *, moved: Seat | None = None) -> None:
    """Bring the match up to date after a change (``moved``: the seat that just moved, by
    its player or as its time ran out)."""
    played = moved if moved is not None and not moved.overdue else None
    _automatic_moves(record, changes)
    rules, state = record.rules, record.state
    for seat in record.seats:
        if seat.state in (Seat.State.PLAYING, Seat.State.RESIGNED, Seat.State.DROPPED):
            seat.progress = rules.progress(state, seat.index)
            seat.score = rules.score(state, seat.index)
    outcome = rules.outcome(state)
    if outcome is not None:
        finish.finish(record, changes, outcome, now)
    elif record.match.time_per_move is not None:
        _deadlines(record, changes, now, moved)
    else:
        _owed_without_deadlines(record)
    bots.settle(record, changes, now, moved)
    if record.match.time_per_move is not None:
        # "Your move" lasts while the move is owed: not once the player has made it (they
        # have the match in front of them, even when the next decision is theirs at once),
        # nor once the match is over or they are out of it.
        for seat in record.seats:
            if not seat.bot and (seat.deadline is None or seat is played):
                changes.move_made(seat.player_id, record.match)
    changes.save(record)


def _automatic_moves(record: Record, changes: Changes) -> None:
    """Make the moves nobody has to wait for: the rest of a decision whose time ran out,
    and the answers a player chose to give always (``standing_move``, if the game has it)."""
    rules = record.rules
    standing = getattr(rules, "standing_move", None)

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
            if seat.overdue and seat.turn == rules.turn(record.state, seat.index):
                move = auto_move(record, seat)
            elif standing is not None and seat.prefs:
                move = standing(record.state, seat.index, seat.prefs)
            if move is not None:
                record.state = rules.apply(record.state, seat.index, move)
                changes.move(record, seat, str(move), auto=True)
                break
        else:
            return
    raise RuntimeError(f"match {record.match.pk}: the game never stops moving by itself")


def _deadlines(record: Record, changes: Changes, now: datetime, moved: Seat | None) -> None:
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
        length = max(match.time_per_move * due.share, timedelta(seconds=due.minimum_seconds))
        seat.deadline = now + length
        seat.turn = turn
        seat.strike = due.strike
        seat.overdue = False
        seat.remind_at = seat.deadline - length * (1 - REMIND_AT)
        seat.reminded = False
        if seat is not moved or timed_out:  # not a player who just moved themselves
            changes.notify_your_move(seat.player_id, match)
        if seat is not moved and not seat.mail_reminder:
            seat.mail_at = now


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

    One transaction for them all: their matches are locked in id order (so runs that
    overlap never deadlock) and read after the locks are held. A seat's deadline is only
    ever changed under its match's lock, and is cleared when its decision is made, so
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
    changes = Changes()
    with transaction.atomic():
        matches = list(
            Match.objects.select_for_update()
            .filter(pk__in=match_ids, status=Match.Status.ACTIVE)
            .order_by("pk")
        )
        seats_of: dict[int, list[Seat]] = defaultdict(list)
        for seat in (
            Seat.objects.filter(match__in=matches)
            .select_related("player")
            .order_by("match_id", "index")
        ):
            seats_of[seat.match_id].append(seat)
        moves_of: dict[int, list[Move]] = defaultdict(list)
        for move in Move.objects.filter(match__in=matches).order_by("match_id", "ply"):
            moves_of[move.match_id].append(move)
        for match in matches:
            # Nothing is written before the flush, so a match that fails is forgotten whole.
            mark, done = changes.mark(), expired
            try:
                seats = seats_of[match.pk]
                record = track(replay(match, seats, moves_of[match.pk], keep=False))
                for seat in seats:
                    if seat.pk in wanted:
                        expired += _expire_seat(record, changes, seat, now)
            except Exception:
                logger.exception("expiry in match %s failed; its seats are skipped", match.pk)
                changes.undo(mark)
                expired = done
        changes.flush()
    return expired


def expire_if_overdue(record: Record, seat: Seat, now: datetime) -> bool:
    """For a player acting on a locked ``record`` after their deadline, before the sweep has
    got to it: make the seat's moves as the sweep would (written now); whether it was due."""
    if seat.deadline is None or seat.deadline > now:
        return False
    changes = Changes()
    _expire_seat(record, changes, seat, now)
    changes.flush()
    return True


def _expire_seat(record: Record, changes: Changes, seat: Seat, now: datetime) -> bool:
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
        changes.move(record, seat, str(move), auto=True)
        made += 1
        if made > AUTOMATIC_LIMIT:
            raise RuntimeError(f"match {record.match.pk}: the fallback never ends the decision")
    seat.deadline = None
    seat.overdue = True
    if made and seat.strike:
        seat.strikes += 1
        seat.total_strikes += 1
        if seat.strikes < 2:
            text = gettext_noop("Your time ran out: a move was made for you (one strike).")
        else:
            try:
                record.state = rules.leave(record.state, seat.index)
            except IllegalMove:
                text = gettext_noop(
                    "Your time ran out again: your last move was made for you; your score stands."
                )
            else:
                changes.move(record, seat, LEAVE)
                seat.state = Seat.State.DROPPED
                text = gettext_noop(
                    "You missed two moves in a row and were dropped from the match."
                )
        changes.notify(seat.player_id, record.match, text)
    settle(record, changes, now, moved=seat)
    return bool(made)


def remind(seat_id: int, *, now: datetime | None = None) -> bool:
    """The 80% reminder of a seat's current deadline, once: a notification, a push to the
    player's devices, and its e-mail made due. False if it is not due or already done."""
    now = now or timezone.now()
    with transaction.atomic():
        claimed = Seat.objects.filter(
            pk=seat_id, reminded=False, remind_at__lte=now, deadline__gt=now
        ).update(reminded=True, mail_at=now, mail_reminder=True)
        if claimed:
            seat = Seat.objects.select_related("match").get(pk=seat_id)
            changes = Changes()
            changes.notify(
                seat.player_id,
                seat.match,
                gettext_noop("Time is running out in %(match)s."),
                push=pushes.ALARM,
                match=seat.match,
            )
            changes.flush()
    return bool(claimed)
