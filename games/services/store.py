"""Stored matches as their game sees them, and the writes a change makes.

A ``Record`` is a match with its seats and moves, replayed through its game
(``games.registry``) into the game's state. Every change to a match locks the match row
first (``lock``), so changes to one match never interleave and no two ever deadlock, and
collects what it writes in a ``Changes``, written together when the change is done:
new moves and notifications in one statement each, changed seats with one statement per set
of changed fields.
"""

from __future__ import annotations

import copy
import threading
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from games import metrics
from games.contract import LEAVE, CommitRules, DraftRules, IllegalMove, Rules
from games.models import Match, Move, Notification, Profile, Seat
from games.registry import find_game
from games.services.prepared import Prepared

#: The fields of a seat that a change may write.
SEAT_FIELDS = (
    "state",
    "progress",
    "score",
    "rank",
    "deadline",
    "turn",
    "strike",
    "overdue",
    "strikes",
    "total_strikes",
    "reminded",
    "remind_at",
    "mail_at",
    "mail_reminder",
    "extensions_left",
    "bot_due",
    "commitment",
    "committed_turn",
)


class MoveRefused(ValueError):
    """A request that cannot be carried out; ``str()`` says why. ``code`` and ``params``
    name the reason, as a game's refusals do (``games.contract.IllegalMove``)."""

    def __init__(self, reason: str, *, code: str = "", **params: Any) -> None:
        super().__init__(reason)
        self.code = code or reason
        self.params = params


def rules_of(match: Match) -> Rules:
    return find_game(match.game)


def options_of(match: Match):
    """The match's options as its game reads them."""
    return rules_of(match).options({**match.options, "players": match.players})


class Made(NamedTuple):
    """A stored move as a replay reads it: the seat that made it and its text."""

    seat_id: int
    text: str


@dataclass(slots=True)
class Record:
    """A stored match and its game's state after its moves (each move read as ``Made``, or
    a ``Move`` made by the change at hand: both have ``seat_id`` and ``text``)."""

    match: Match
    seats: list[Seat]
    moves: list[Made | Move]
    rules: Rules
    state: Any

    @property
    def ply(self) -> int:
        """How many moves the match has (the number of the next one)."""
        return len(self.moves)

    def moves_of(self, seat: Seat) -> list[Move]:
        """The moves made by the player of ``seat``, in order."""
        return [move for move in self.moves if move.seat_id == seat.pk]

    def seat_of(self, user) -> Seat:
        for seat in self.seats:
            if seat.player_id == user.pk:
                return seat
        raise Seat.DoesNotExist

    def apply(self, seat: Seat, text: str):
        """Make the move written ``text`` for ``seat`` in the state (a game's IllegalMove if
        it may not be made); returns the move as the game reads it."""
        if text == LEAVE:
            self.state = self.rules.leave(self.state, seat.index)
            return LEAVE
        move = self.rules.parse_move(text)
        self.state = self.rules.apply(self.state, seat.index, move)
        return move


#: Why nothing is drafted or played for a player who may still commit to a kind of move.
MUST_COMMIT = gettext_noop("Choose first what you will do with this decision.")


def commitment_of(record: Record, seat: Seat) -> str:
    """What the player of ``seat`` committed to for the decision they owe now ("": nothing;
    a commitment made for an earlier decision is over)."""
    if not seat.commitment or seat.committed_turn != record.rules.turn(record.state, seat.index):
        return ""
    return seat.commitment


def offered_commitments(record: Record, seat: Seat) -> tuple[str, ...]:
    """What the player of ``seat`` may commit to now (``CommitRules``): nothing when they owe
    no decision or have committed for this one already."""
    rules, state = record.rules, record.state
    if not isinstance(rules, CommitRules) or seat.has_left or commitment_of(record, seat):
        return ()
    if seat.index not in rules.to_move(state):
        return ()
    return tuple(rules.commitments(state, seat.index))


def check_commitments(record: Record, seat: Seat, move, *, offered: bool = True) -> None:
    """IllegalMove if ``move`` breaks the commitment the player of ``seat`` made for this
    decision, or (``offered``) keeps one they are offered but have not made: they commit
    first, so that nothing the commitment decides is tried before (not even by the reasons
    a refused move would give)."""
    rules, state = record.rules, record.state
    kept = commitment_of(record, seat)
    if kept:
        rules.check_commitment(state, seat.index, kept, move)
        return
    for commitment in offered_commitments(record, seat) if offered else ():
        try:
            rules.check_commitment(state, seat.index, commitment, move)
        except IllegalMove:
            continue
        raise IllegalMove(gettext(MUST_COMMIT), code="commit first")


def auto_move(record: Record, seat: Seat):
    """The game's fallback move for the seat (its time ran out), keeping the commitment the
    player made for this decision."""
    rules, state = record.rules, record.state
    kept = commitment_of(record, seat)
    if kept and isinstance(rules, CommitRules):
        return rules.committed_auto_move(state, seat.index, kept)
    return rules.auto_move(state, seat.index)


#: Recently replayed states by (match, options, every move made): a match's moves are only
#: ever added to, so the same key always means the same state.
_replayed: OrderedDict[tuple, Any] = OrderedDict()
#: The state with the most moves kept for each match: (its moves, the state). A match
#: another process has moved in since is replayed from there, not from the start.
_newest: OrderedDict[tuple, tuple[tuple, Any]] = OrderedDict()
_REPLAYED = 256
_replaying = threading.Lock()


def _key(match: Match, seats: list[Seat], moves: list[Made | Move]) -> tuple[tuple, tuple]:
    """(the match and its options, the moves made: (seat index, text) each)."""
    index = {seat.pk: seat.index for seat in seats}
    made = tuple((index[m.seat_id], m.text) for m in moves)
    return (match.pk, match.game, match.seed, match.players, repr(match.options)), made


def _remember(which: tuple, made: tuple, state: Any) -> None:
    """Keep ``state`` as the one ``made`` leads to (the caller holds ``_replaying``)."""
    _replayed[(*which, made)] = state
    _replayed.move_to_end((*which, made))
    while len(_replayed) > _REPLAYED:
        _replayed.popitem(last=False)
    newest = _newest.get(which)
    if newest is None or len(newest[0]) <= len(made):
        _newest[which] = (made, state)
    _newest.move_to_end(which)
    while len(_newest) > _REPLAYED:
        _newest.popitem(last=False)


def replay(
    match: Match,
    seats: list[Seat],
    moves: list[Made | Move],
    *,
    shared: bool = False,
    keep: bool = True,
) -> Record:
    """The match's state, from its seed and options and its moves in order.

    ``shared``: the state may be one that other readers hold too, so it must not be changed
    (for pages); otherwise it is the caller's own. ``keep``: remember it for the next time
    (not for a batch of many matches, which would only push out the ones being looked at).
    A state kept for the first moves of ``moves`` is carried on with the rest.
    """
    rules = rules_of(match)
    if not keep:
        return _replay(match, seats, moves, rules)
    which, made = _key(match, seats, moves)
    with _replaying:
        known = _replayed.get((*which, made))
        if known is not None:
            _replayed.move_to_end((*which, made))
        newest = _newest.get(which)
    if known is not None:
        state = known if shared else copy.deepcopy(known)
        return Record(match, seats, moves, rules, state)
    start = None
    if newest is not None and len(newest[0]) < len(made) and made[: len(newest[0])] == newest[0]:
        start = (len(newest[0]), copy.deepcopy(newest[1]))
    record = _replay(match, seats, moves, rules, start)
    with _replaying:
        _remember(which, made, record.state if shared else copy.deepcopy(record.state))
    return record


def keep(record: Record) -> None:
    """Remember the record's state as the one its moves lead to, for the pages that follow a
    change (a player's next preview replays nothing). Called once the change is committed;
    the caller changes the state no more."""
    which, made = _key(record.match, record.seats, record.moves)
    with _replaying:
        _remember(which, made, record.state)


def _replay(
    match: Match,
    seats: list[Seat],
    moves: list[Made | Move],
    rules: Rules,
    start: tuple[int, Any] | None = None,
) -> Record:
    """Replay ``moves``; from ``start`` (the number of moves already made and the state they
    led to, the caller's own) when given, else from the match's setup."""
    done, state = start or (0, rules.setup(match.players, match.seed, options_of(match)))
    record = Record(match, seats, moves, rules, state)
    by_pk = {seat.pk: seat for seat in seats}
    for move in moves[done:]:
        record.apply(by_pk[move.seat_id], move.text)
    return record


def moves_of(match: Match) -> list[Made]:
    """The match's moves in order: one plain query, read into tuples, as every page and
    preview reads them (made into ``Move`` objects they took longer than the replay)."""
    meta = Move._meta
    quote = connection.ops.quote_name
    seat, text, match_id, ply = (
        quote(meta.get_field(name).column) for name in ("seat", "text", "match", "ply")
    )
    sql = f"SELECT {seat}, {text} FROM {quote(meta.db_table)} WHERE {match_id} = %s ORDER BY {ply}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [match.pk])
        return [Made(*row) for row in cursor.fetchall()]


_seats = Prepared(
    lambda match_id: (
        Seat.objects.filter(match_id=match_id).select_related("player").order_by("index")
    )
)


def seats_of(match: Match) -> list[Seat]:
    """The match's seats in order, with their players, each holding ``match`` itself."""
    seats = _seats(match.pk)
    for seat in seats:
        seat.match = match
    return seats


_locked_match = Prepared(lambda match_id: Match.objects.select_for_update().filter(pk=match_id))


def load(match: Match, seats: list[Seat] | None = None) -> Record:
    """A match replayed as it is stored now, for reading: nothing is locked, and its state
    must not be changed."""
    if seats is None:
        seats = seats_of(match)
    return replay(match, seats, moves_of(match), shared=True)


def lock(match_id: int) -> Record:
    """The match, locked until the transaction ends, replayed into a state of the caller's
    own. Raises Match.DoesNotExist."""
    match = _locked_match.one(match_id)
    seats = seats_of(match)
    remember(seats)
    return replay(match, seats, moves_of(match))


def remember(seats: list[Seat]) -> None:
    """Note the seats' fields as read, so that only what changes is written."""
    for seat in seats:
        seat._stored = {name: getattr(seat, name) for name in SEAT_FIELDS}


class Changes:
    """What a change writes: moves, notifications, seat and match fields, and any other
    write (``later``), collected and then written together by ``flush`` (one change, or a
    whole batch of expiries). Until then nothing is written, so ``undo`` forgets a part of
    it completely."""

    def __init__(self) -> None:
        self.moves: list[Move] = []
        self.notifications: list[tuple[int, Match | None, str, dict[str, Any]]] = []
        self.your_move: list[tuple[int, Match, bool]] = []
        self.seats: dict[int, tuple[Seat, set[str]]] = {}
        self.matches: dict[int, tuple[Match, set[str]]] = {}
        self.after: list = []

    def move(self, record: Record, seat: Seat, text: str, *, auto: bool = False) -> None:
        """Keep ``text`` as the record's next move (already applied to its state)."""
        move = Move(
            match=record.match,
            ply=record.ply,
            seat=seat,
            text=text,
            auto=auto,
            created=timezone.now(),
        )
        record.moves.append(move)
        self.moves.append(move)

    def notify(self, player_id: int, match: Match | None, text: str, /, **params: Any) -> None:
        """A notification for the player: ``text`` is the English message (marked with
        ``gettext_noop``), written in the player's own language with ``params`` (anything,
        said as ``str()`` in that language) when the changes are written."""
        self.notifications.append((player_id, match, text, params))

    def notify_your_move(self, player_id: int, match: Match) -> None:
        """The move in ``match`` is the player's (again): their "your move" notification
        comes up to date."""
        self.your_move.append((player_id, match, True))

    def move_made(self, player_id: int, match: Match) -> None:
        """The player owes no move in ``match`` now: their "your move" notification goes."""
        self.your_move.append((player_id, match, False))

    def save_match(self, match: Match, *fields: str) -> None:
        self.matches.setdefault(match.pk, (match, set()))[1].update(fields)

    def later(self, write) -> None:
        """Call ``write()`` when the changes are written."""
        self.after.append(write)

    def save(self, seats: list[Seat]) -> None:
        """Write the fields of each seat that changed since they were read."""
        for seat in seats:
            stored = getattr(seat, "_stored", {})
            values = {name: getattr(seat, name) for name in SEAT_FIELDS}
            changed = {name for name, value in values.items() if stored.get(name, seat) != value}
            if changed:
                self.seats.setdefault(seat.pk, (seat, set()))[1].update(changed)
            seat._stored = values

    def mark(self) -> tuple:
        """Where the writes stand now, for ``undo``."""
        return (
            len(self.moves),
            len(self.notifications),
            len(self.your_move),
            set(self.seats),
            set(self.matches),
            len(self.after),
        )

    def undo(self, mark: tuple) -> None:
        """Forget every write collected since ``mark``."""
        moves, notifications, your_move, seats, matches, after = mark
        del self.moves[moves:]
        del self.notifications[notifications:]
        del self.your_move[your_move:]
        for seat_id in set(self.seats) - seats:
            del self.seats[seat_id]
        for match_id in set(self.matches) - matches:
            del self.matches[match_id]
        del self.after[after:]

    def flush(self) -> None:
        for match, fields in self.matches.values():
            match.save(update_fields=sorted(fields))
        Move.objects.bulk_create(self.moves)
        Notification.objects.bulk_create(_in_their_languages(self.notifications))
        _your_move_notifications(self.your_move)
        groups: dict[tuple[str, ...], list[Seat]] = defaultdict(list)
        for seat, fields in self.seats.values():
            groups[tuple(sorted(fields))].append(seat)
        for fields, seats in groups.items():
            _update_seats(seats, fields)
        for write in self.after:
            write()
        if self.moves:
            games = Counter(move.match.game for move in self.moves)
            transaction.on_commit(lambda: metrics.moves_committed(games))
        self.__init__()


def _in_their_languages(pending) -> list[Notification]:
    """The notifications, each written in its reader's language (else the site's)."""
    if not pending:
        return []
    saved = Profile.languages_of({player_id for player_id, *_rest in pending})
    made = []
    for player_id, match, text, params in pending:
        with translation.override(saved.get(player_id, settings.LANGUAGE_CODE)):
            words = gettext(text)
            if params:
                words %= {name: str(value) for name, value in params.items()}
        made.append(Notification(player_id=player_id, match=match, text=words[:200]))
    return made


def _update_seats(seats: list[Seat], fields: tuple[str, ...]) -> None:
    """Write ``fields`` of many seats with one statement sent for all rows at once.

    ``executemany`` sends the rows together (psycopg pipelines them), where
    ``bulk_update`` would build a CASE expression per row and field in Python.
    """
    meta = Seat._meta
    columns = [meta.get_field(name) for name in fields]
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


def _your_move_notifications(changes: list[tuple[int, Match, bool]]) -> None:
    """One "your move" per player and match at most, read or not, and only while the move is
    theirs: each player's last change in a match says whether they owe it (``due``). The
    notification there was goes, and a player who owes the move gets it anew: unread, now,
    in their language. Two statements for them all."""
    last = {(player_id, match.pk): (player_id, match, due) for player_id, match, due in changes}
    if not last:
        return
    players: dict[int, list[int]] = defaultdict(list)
    for player_id, match_id in last:
        players[match_id].append(player_id)
    stale = Q()
    for match_id, ids in players.items():
        stale |= Q(match_id=match_id, player_id__in=ids)
    Notification.objects.filter(stale, kind=Notification.Kind.MOVE).delete()
    owed = [
        (player_id, match, gettext_noop("Your move in %(match)s."), {"match": match})
        for player_id, match, due in last.values()
        if due
    ]
    now = timezone.now()
    made = _in_their_languages(owed)
    for notification in made:
        notification.kind = Notification.Kind.MOVE
        notification.created = now
    Notification.objects.bulk_create(made)


@dataclass(frozen=True, slots=True)
class MatchView:
    """A match as one user may see it: never the game's state, only its view for them.

    ``seat`` is the user's own seat (None for a spectator); ``view`` is the game's view
    for that seat (``Rules.view``); ``ply`` the number of moves the viewer has made (all the
    match's moves for a spectator), which a move form sends back so that a page that is out
    of date is noticed: never the whole match's count, which in free pace would tell how far
    the others have got. ``draft(text)`` is the view
    while the player composes a move of several steps (``DraftRules``); ``history()`` how a
    finished match went, for its replay. ``commitment`` is what the player committed to for
    the decision they owe (``CommitRules``), ``may_commit`` what they may still commit to:
    while they may, they draft nothing.
    """

    match: Match
    seats: list[Seat]
    seat: Seat | None
    rules: Rules
    view: Any
    ply: int
    extras: dict[str, Any] = field(default_factory=dict)
    commitment: str = ""
    may_commit: tuple[str, ...] = ()
    _draft: Callable[[str], tuple[Any, IllegalMove | None]] | None = None
    _history: Callable[[bool], tuple[Frame, ...]] | None = None

    @property
    def is_player(self) -> bool:
        return self.seat is not None

    def draft(self, text: str) -> tuple[Any, IllegalMove | None]:
        """The player's view after the steps ``text`` of the move they owe, and the first
        refused step (``DraftRules.draft``); their plain view when the game has no drafts
        or they owe nothing."""
        if self._draft is None:
            return self.view, None
        return self._draft(text)

    def history(self, *, everyone: bool = False) -> tuple[Frame, ...]:
        """How the match went, once it is over (empty before): every player's view at the
        start, then after each move the view of the player who made it (``everyone``: then
        every other player's view too, with no text)."""
        return () if self._history is None else self._history(everyone)


@dataclass(frozen=True, slots=True)
class Frame:
    """One player's view of a finished match after ``ply`` moves; ``text`` is the move of
    theirs that led to it (None for the view at the start)."""

    ply: int
    player: int
    text: str | None
    view: Any


def history(record: Record, everyone: bool = False) -> tuple[Frame, ...]:
    """The frames of ``MatchView.history``, replayed from the seed and the moves."""
    match, rules = record.match, record.rules
    fresh = _replay(match, record.seats, [], rules)
    frames = [Frame(0, p, None, rules.view(fresh.state, p)) for p in range(match.players)]
    by_pk = {seat.pk: seat for seat in record.seats}
    for ply, move in enumerate(record.moves, start=1):
        seat = by_pk[move.seat_id]
        fresh.apply(seat, move.text)
        frames.append(Frame(ply, seat.index, move.text, rules.view(fresh.state, seat.index)))
        if everyone:
            frames.extend(
                Frame(ply, p, None, rules.view(fresh.state, p))
                for p in range(match.players)
                if p != seat.index
            )
    return tuple(frames)


def view_of(record: Record, seat: Seat | None) -> MatchView:
    """What the player of ``seat`` (None: a spectator) may see of the record."""
    rules, state = record.rules, record.state
    view = rules.view(state, None if seat is None else seat.index)
    drafting = None
    commitment, may_commit = "", ()
    owing = seat is not None and not seat.has_left and seat.index in rules.to_move(state)
    if owing:
        commitment = commitment_of(record, seat)
        may_commit = offered_commitments(record, seat)
    if owing and isinstance(rules, DraftRules):
        if may_commit:

            def drafting(text: str) -> tuple[Any, IllegalMove | None]:
                return view, IllegalMove(gettext(MUST_COMMIT), code="commit first")

        else:

            def drafting(text: str) -> tuple[Any, IllegalMove | None]:
                return rules.draft(state, seat.index, text)

    frames = None
    if record.match.status == Match.Status.FINISHED:

        def frames(everyone: bool) -> tuple[Frame, ...]:
            return history(record, everyone)

    return MatchView(
        record.match,
        record.seats,
        seat,
        rules,
        view,
        record.ply if seat is None else len(record.moves_of(seat)),
        commitment=commitment,
        may_commit=may_commit,
        _draft=drafting,
        _history=frames,
    )
