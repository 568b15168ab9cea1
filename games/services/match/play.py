"""Playing: looking at a match, making a move, resigning, more time, a player's choices.

There is one way to act in any game: ``play(match_id, user, text, made)``. ``text`` is the
move in the game's notation; ``made`` is the number of moves the player had made when their
page was drawn (``MatchView.ply``: their own, never the match's, which in free pace would tell
how far the others have got). A page that is out of date is noticed: if the player has moved
since, the same move again (a double submit) is answered as the first one was, and any other
is refused. Where a game lets a player commit to a kind of move before trying it
(``CommitRules``), ``commit(match_id, user, commitment, made)`` records that for the decision
they owe; ``play`` refuses the moves that break it, and, before it is made, the moves that
would keep it.
Every answer is a ``MatchView``: what the player may see, never the game's state.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache

from django.db import IntegrityError, connection
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.contract import LEAVE, IllegalMove
from games.models import Match, Move, Notification, Profile, Seat
from games.services.match import bus, deadlines, unit, visibility
from games.services.match.commitments import check_commitments, commitment_of, offered_commitments
from games.services.match.kept import load, load_many
from games.services.match.matchview import MatchView, view_of
from games.services.match.prepared import Prepared
from games.services.match.record import MoveRefused, Record

EXTENSION = timedelta(days=1)


def your_moves(player):
    """The player's seats in running matches (not solo games) that owe a move, the most
    urgent first: "next game" (``owed_match_ids``: the same, by match id, for the count in
    the tab title; ``owes_move``: the same question of one seat)."""
    return (
        Seat.objects.filter(
            player=player,
            state=Seat.State.PLAYING,
            match__status=Match.Status.ACTIVE,
            match__kind__in=[Match.Kind.MATCH, Match.Kind.CHALLENGE],
        )
        .filter(Q(deadline__isnull=False) | Q(match__time_per_move=None, turn__isnull=False))
        .order_by(F("deadline").asc(nulls_last=True), "id")
    )


def owes_move(seat: Seat) -> bool:
    """Whether ``seat`` (with its match) is one of ``your_moves``: it has a deadline, or, in a
    match with no time limit, a decision owed."""
    match = seat.match
    return (
        seat.state == Seat.State.PLAYING
        and (seat.deadline is not None or (match.time_per_move is None and seat.turn is not None))
        and match.status == Match.Status.ACTIVE
        and match.kind in (Match.Kind.MATCH, Match.Kind.CHALLENGE)
    )


def owed_match_ids(player) -> list[int]:
    """The matches of ``your_moves(player)``, most urgent first, by id: one plain query, as
    every page of a signed-in player asks for them (the tab title's count, "next game"):
    the ORM took longer to write this join than the database takes to run it."""
    quote = connection.ops.quote_name
    seat, match = Seat._meta, Match._meta

    def column(meta, name: str) -> str:
        return quote(meta.get_field(name).column)

    match_id = f"s.{column(seat, 'match')}"
    sql = (
        f"SELECT {match_id} FROM {quote(seat.db_table)} s"
        f" INNER JOIN {quote(match.db_table)} m ON m.{column(match, 'id')} = {match_id}"
        f" WHERE s.{column(seat, 'player')} = %s AND s.{column(seat, 'state')} = %s"
        f" AND (s.{column(seat, 'deadline')} IS NOT NULL OR"
        f" (m.{column(match, 'time_per_move')} IS NULL AND s.{column(seat, 'turn')} IS NOT NULL))"
        f" AND m.{column(match, 'status')} = %s"
        f" AND m.{column(match, 'kind')} IN (%s, %s)"
        f" ORDER BY s.{column(seat, 'deadline')} IS NULL, s.{column(seat, 'deadline')},"
        f" s.{column(seat, 'id')}"
    )
    params = [player.pk, Seat.State.PLAYING.value, Match.Status.ACTIVE.value]
    params += [Match.Kind.MATCH.value, Match.Kind.CHALLENGE.value]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


@lru_cache(maxsize=50_000)
def game_of(match_id: int) -> str:
    """The game a match is played in (its rules' name); Match.DoesNotExist if there is no such
    match. Read once per process (a match's game never changes): a move's form is read by its
    game before the move is made, and that is one query fewer per move."""
    return Match.objects.values_list("game", flat=True).get(pk=match_id)


# A tournament's game names its tournament on its page (a swiss table's, a duplicate's deal's).
_seats_with_match = Prepared(
    Seat,
    "match_id",
    related=("match__puzzle__tournament", "match__tournament", "player"),
    order_by=("index",),
)


def open_match(match_id: int, user) -> tuple[Match, list[Seat], Seat | None]:
    """A match as ``user`` may look at it: the match, its seats and the user's own seat.

    Raises Match.DoesNotExist for a match they may not know of, and
    ``visibility.Hidden`` for one that would show them a puzzle order still secret to them.
    """
    # The match comes with its seats, in one query (every page and preview asks for both);
    # only a match without seats is read on its own.
    seats = _seats_with_match(match_id)
    if seats:
        match = seats[0].match
        for other in seats[1:]:
            other.match = match
    else:
        match = Match.objects.select_related("puzzle").get(pk=match_id)
    seat = next((s for s in seats if user.is_authenticated and s.player_id == user.pk), None)
    visibility.check_match_visible(user, match, seat)
    return match, seats, seat


def view_match(match_id: int, user) -> MatchView:
    """What ``user`` may see of the match (their own seat's view, or a spectator's)."""
    match, seats, seat = open_match(match_id, user)
    if match.status in (Match.Status.WAITING, Match.Status.CANCELLED):
        return MatchView(match, seats, seat, None, 0)
    return view_of(load(match, seats), seat)


def glances(seats: list[Seat]) -> dict[int, MatchView]:
    """The view each seat's player has of its running match (``seats`` with their matches:
    one player's, as the home page lists them), by match: two queries whatever their number,
    one for the matches' seats and one for their moves."""
    records = load_many(list({seat.match_id: seat.match for seat in seats}.values()))
    views = {}
    for seat in seats:
        record = records[seat.match_id]
        own = next(s for s in record.seats if s.pk == seat.pk)
        views[seat.match_id] = view_of(record, own)
    return views


#: The answer to a move or an extension asked for after the deadline, before the sweep got
#: to it: the moves are made for the player, as the sweep would have made them.
TIME_RAN_OUT = gettext_noop("Your time for this move had run out: it was made for you.")


def play(match_id: int, user, text: str, made: int, *, commits: bool = False) -> MatchView:
    """``user`` makes the move written ``text`` in the match; MoveRefused with the reason if
    they may not. Raises Seat.DoesNotExist when ``user`` has no seat in the match.
    ``commits``: the move comes with whatever commitment it keeps (a bot's move, which tries
    nothing before it is made); a player commits first (``commit``)."""
    try:
        with unit.change(match_id) as change:
            record = change.record
            seat = record.seat_of(user)
            mine = record.made_by(seat)
            if not 0 <= made <= mine:
                raise MoveRefused(_("The page is out of date: look at the match again."))
            if made < mine:
                return _answered_already(record, seat, made, text)
            _check_playing(record.match, seat)
            now = timezone.now()
            expired = deadlines.expire_if_overdue(change, seat, now)
            if not expired:
                _move(change, seat, text, now, commits=commits)
    except IntegrityError:
        # Somebody else's move took this ply first: answer from what is stored now.
        record = load(Match.objects.get(pk=match_id))
        seat = record.seat_of(user)
        if record.made_by(seat) > made:
            return _answered_already(record, seat, made, text)
        raise MoveRefused(_("Somebody moved at the same time: try again.")) from None
    if expired:
        # Past the deadline (the sweep had not got to it yet): the moves made for the player
        # are stored, and theirs is refused.
        raise MoveRefused(_(TIME_RAN_OUT))
    return view_of(change.record, seat)


def _check_playing(match: Match, seat: Seat) -> None:
    """MoveRefused unless the player of ``seat`` is playing in the running ``match``."""
    if match.status == Match.Status.FINISHED:
        raise MoveRefused(_("This game is over."))
    if match.status != Match.Status.ACTIVE:
        raise MoveRefused(_("This match has not started."))
    if seat.has_left:
        raise MoveRefused(_("You have left this match."))


def _move(change: unit.Change, seat: Seat, text: str, now: datetime, *, commits: bool) -> None:
    """Make the player's move on the locked record, in the change."""
    record = change.record
    rules = record.rules
    try:
        move = rules.parse_move(text)
        check_commitments(record, seat, move, offered=not commits)
        record.state = rules.apply(record.state, seat.index, move)
    except IllegalMove as exc:
        raise MoveRefused(exc.reason, code=exc.code, **exc.params) from None
    change.move(seat, str(move))
    seat.strikes = 0
    seat.overdue = False
    deadlines.settle(change, now, moved=seat)


def commit(match_id: int, user, commitment: str, made: int) -> MatchView:
    """``user`` commits to ``commitment`` for the decision they owe, before trying their move
    (``CommitRules``: "build" in NMBR 9 ++ "2 of 3"); MoveRefused if they may not. The same
    commitment again (a double submit) is answered as the first. ``made`` is as for ``play``.
    Raises Seat.DoesNotExist when ``user`` has no seat in the match."""
    with unit.change(match_id) as change:
        record = change.record
        seat = record.seat_of(user)
        if made != record.made_by(seat):
            raise MoveRefused(_("The page is out of date: look at the match again."))
        _check_playing(record.match, seat)
        expired = deadlines.expire_if_overdue(change, seat, timezone.now())
        if not expired:
            _commit(change, seat, commitment)
    if expired:
        raise MoveRefused(_(TIME_RAN_OUT))
    return view_of(change.record, seat)


def _commit(change: unit.Change, seat: Seat, commitment: str) -> None:
    record = change.record
    kept = commitment_of(record, seat)
    if kept and kept == commitment:
        return
    offered = offered_commitments(record, seat)
    if not offered:
        raise MoveRefused(_("There is nothing to choose now: look at the match again."))
    if commitment not in offered:
        raise MoveRefused(_("That is not one of the choices you have now."))
    seat.commitment = commitment
    seat.committed_turn = record.rules.turn(record.state, seat.index)
    change.emit(bus.Committed(record.match, seat))


def _answered_already(record: Record, seat: Seat, made: int, text: str) -> MatchView:
    """The player's page was out of date: they have moved since it was drawn (their move
    number ``made`` is stored)."""
    stored = Move.objects.filter(seat=seat).order_by("ply").values_list("text", flat=True)
    try:
        same = str(record.rules.parse_move(text)) == stored[made]
    except IllegalMove:
        same = False
    if not same:
        raise MoveRefused(_("You have moved since this page was drawn: look at it again."))
    return view_of(record, seat)


def resign(match_id: int, user) -> None:
    with unit.change(match_id) as change:
        record = change.record
        seat = record.seat_of(user)
        if record.match.status != Match.Status.ACTIVE or seat.has_left:
            raise MoveRefused(_("You can only resign from a match you are playing."))
        try:
            record.state = record.rules.leave(record.state, seat.index)
        except IllegalMove:
            raise MoveRefused(_("You have made all your moves: your score stands.")) from None
        change.move(seat, LEAVE)
        seat.state = Seat.State.RESIGNED
        seat.deadline = None
        others = tuple(other.player_id for other in record.seats if other.pk != seat.pk)
        change.emit(bus.PlayerLeft(record.match, seat, True, user.username, others))
        deadlines.settle(change, timezone.now(), moved=seat)


def extend(match_id: int, user) -> datetime:
    """Push the player's own deadline back by a day (a limited number of times)."""
    with unit.change(match_id) as change:
        seat = change.record.seat_of(user)
        if seat.deadline is None or change.match.status != Match.Status.ACTIVE:
            raise MoveRefused(_("You have no running deadline to extend."))
        expired = deadlines.expire_if_overdue(change, seat, timezone.now())
        if not expired:
            _extend(change, seat)
    if expired:
        raise MoveRefused(_(TIME_RAN_OUT))
    return seat.deadline


def _extend(change: unit.Change, seat: Seat) -> None:
    if change.match.realtime:
        raise MoveRefused(_("A real-time match has no extensions."))
    if seat.extensions_left == 0:
        raise MoveRefused(_("You have used all your extensions in this match."))
    deadline, per_move = seat.deadline, change.match.time_per_move
    assert deadline is not None and per_move is not None  # a running deadline (``extend``)
    extended = deadline + EXTENSION
    seat.deadline = extended
    seat.extensions_left -= 1
    seat.remind_at = extended - per_move * (1 - deadlines.REMIND_AT)
    seat.reminded = False
    change.emit(bus.DeadlineExtended(change.match, seat))


def set_prefs(match_id: int, user, **prefs) -> None:
    """The player's standing choices for this match (e.g. ``always_pass``)."""
    with unit.change(match_id) as change:
        seat = change.record.seat_of(user)
        seat.prefs = {**seat.prefs, **prefs}
        if change.match.status == Match.Status.ACTIVE:
            deadlines.settle(change, timezone.now())


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


def touch(player, *, now: datetime | None = None) -> None:
    """Note that ``player`` is on the site now (e-mails wait while they are)."""
    now = now or timezone.now()
    if not Profile.objects.filter(player=player).update(last_seen=now):
        Profile.objects.get_or_create(player=player, defaults={"last_seen": now})
