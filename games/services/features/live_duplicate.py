"""Live duplicate tournaments: every entrant plays each game of the tournament at the same
time, on the same deal, each of its steps shown to all at once.

Each entrant plays a game of their own on the deal (a match of kind DUPLICATE, with no
deadline of its own), held at the steps dealt so far (``Puzzle.dealt``:
``services.match.lockstep``). A step is dealt to all when every entrant still playing went
through the one before (``advance``, after each move's commit), or when its time is up
(``Puzzle.due``: ``close_round`` makes the fallback move for everybody behind; a player who
missed ``MISSES`` steps in a row is out of that game, their score so far counting). Once
every game on the deal is over the tournament finishes, or its next game is dealt a
``BREAK`` later (``due_games``), all players having seen how the last one ended. The
clock (``manage.py clock``) hands the rounds whose time is up (``due_rounds``), the live
duplicates that are due to start (``due_starts``) and the games due to be dealt to the fast
workers (``work_due``); the sweep does the same every 30 s. Every step below claims its
rows, so doing it twice does it once.
Standings are the duplicate's (``tournaments.update_standings``), worked out once per game.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from games.contract import LEAVE, StepRules
from games.infra import events
from games.models import Entry, Match, Puzzle, Seat, Tournament
from games.registry import find_game, puzzle_games, puzzle_rules
from games.services.features import tournaments
from games.services.match import deadlines, lobby, play, unit
from games.services.match.kept import load_many
from games.services.match.matchview import version, view_of
from games.services.match.record import MoveRefused
from games.services.match.versions import audience_of

#: Steps missed in a row after which a player is out of the game.
MISSES = 2
#: Lines of the leaderboard shown beside a game.
LEADERS = 10
#: Lines of the leaderboard of the game being played on the tournament's page.
BOARD = 100
#: The pause between a live duplicate's games: the players see how the last one ended.
BREAK = timedelta(seconds=15)


def create(
    creator,
    *,
    name: str,
    game: str,
    games: int,
    speed: str,
    starts: datetime,
    open: bool,
    options: Mapping[str, Any] | None = None,
) -> Tournament:
    """A new live duplicate tournament, upcoming; MoveRefused with the reason for settings
    it cannot have."""
    name = tournaments.checked(creator, name, starts)
    if game not in puzzle_games() or not isinstance(find_game(game), StepRules):
        raise MoveRefused(_("Choose a game."))
    if not 1 <= games <= tournaments.MOST_GAMES:
        raise MoveRefused(
            _("A tournament has 1 to %(most)s games.") % {"most": tournaments.MOST_GAMES},
        )
    if speed not in lobby.SPEEDS:
        raise MoveRefused(_("Choose a time per move."))
    stored = lobby.game_options(game, 1, {**(options or {}), "pace": "free"})
    tournament = Tournament.objects.create(
        name=name,
        game=game,
        format=Tournament.Format.DUPLICATE,
        mode=Tournament.Mode.LIVE,
        options=stored,
        games=games,
        time_per_move=lobby.SPEEDS[speed],
        starts=starts,
        created_by=creator,
        open=open,
        token=secrets.token_urlsafe(lobby.LINK_BYTES),
    )
    Entry.objects.create(tournament=tournament, player=creator)
    return tournament


def deal_game(tournament: Tournament, number: int, now: datetime) -> Puzzle:
    """Deal game ``number`` of the tournament: its first step shown to all, and a game on it
    begun for every entrant (in the caller's transaction)."""
    assert tournament.time_per_move is not None
    deal = Puzzle.objects.create(
        game=tournament.game,
        seed=tournaments.new_deal_seed(),
        start="",
        options=tournament.options,
        tournament=tournament,
        number=number,
        opens=now,
        dealt=1,
        due=now + tournament.time_per_move,
    )
    players = tournament.entries.filter(withdrawn=False).select_related("player")
    for entry in players.order_by("id"):
        lobby.start_solo(entry.player, kind=Match.Kind.DUPLICATE, puzzle=deal)
    transaction.on_commit(lambda: announce(deal.pk))
    return deal


def _behind(deal: Puzzle, dealt: int):
    """The games on the live ``deal`` still playing whose player has not gone through the
    ``dealt`` steps shown."""
    playing = Match.objects.filter(puzzle=deal, status=Match.Status.ACTIVE)
    return playing.annotate(made=Count("moves")).filter(made__lt=dealt)


def advance(deal_id: int, now: datetime | None = None) -> bool:
    """Deal the next step of the live deal if nobody is behind (or the next game, or finish
    the tournament, once every game on it is over); False if it is not time yet."""
    now = now or timezone.now()
    with transaction.atomic():
        deal = Puzzle.objects.select_related("tournament").filter(pk=deal_id).first()
        if deal is None or deal.dealt is None or _behind(deal, deal.dealt).exists():
            return False
        tournament = deal.tournament
        assert tournament is not None and tournament.time_per_move is not None
        if Match.objects.filter(puzzle=deal, status=Match.Status.ACTIVE).exists():
            claimed = Puzzle.objects.filter(pk=deal_id, dealt=deal.dealt).update(
                dealt=deal.dealt + 1, due=now + tournament.time_per_move
            )
            if claimed:
                transaction.on_commit(lambda: announce(deal_id))
            return bool(claimed)
        # Every game on the deal is over: the deal is shown whole, and the next is dealt.
        claimed = Puzzle.objects.filter(pk=deal_id, dealt=deal.dealt).update(
            dealt=None, due=None, closes=now
        )
        if not claimed:
            return False
        tournaments.update_standings(tournament.pk, now)
        if deal.number is None or deal.number >= tournament.games:
            tournaments.finish(tournament.pk, now)
        return True  # the next game is dealt a BREAK later (``due_games``)


def close_round(deal_id: int, now: datetime | None = None) -> int:
    """The time of the live deal's step is up: the fallback move for every player behind (out
    of the game after ``MISSES`` in a row), then the next step; how many moves were made."""
    now = now or timezone.now()
    deal = Puzzle.objects.filter(pk=deal_id, due__lte=now).first()
    if deal is None or deal.dealt is None:
        return 0
    dealt = deal.dealt
    behind = list(_behind(deal, dealt).values_list("pk", flat=True))
    made = unit.each(behind, lambda change: _fallback(change, dealt, now))
    advance(deal_id, now)
    return made


def _fallback(change: unit.Change, dealt: int, now: datetime) -> int:
    record = change.record
    seat = record.seats[0]
    if seat.has_left or record.made_by(seat) >= dealt:
        return 0
    rules, state = record.rules, record.state
    if seat.strikes + 1 >= MISSES:
        record.state = rules.leave(state, seat.index)
        change.move(seat, LEAVE)
        seat.state = Seat.State.RESIGNED
    else:
        move = rules.auto_move(state, seat.index)
        record.state = rules.apply(state, seat.index, move)
        change.move(seat, str(move), timed_out=True)
    seat.strikes += 1
    seat.total_strikes += 1
    deadlines.settle(change, now, moved=seat)
    return 1


def withdraw(tournament_id: int, player) -> None:
    """Leave a running live duplicate: no next game is dealt to the player, and their game
    under way is left (its score so far counting; the round goes on without them)."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.mode != Tournament.Mode.LIVE:
            raise MoveRefused(
                _("Each game of this tournament is played when you like: just leave it unplayed.")
            )
        if tournament.status != Tournament.Status.RUNNING:
            raise MoveRefused(_("This tournament is not running."))
        mine = Entry.objects.filter(tournament=tournament, player=player).first()
        if mine is None:
            raise MoveRefused(_("You are not in this tournament."))
        if mine.withdrawn:
            raise MoveRefused(_("You have left this tournament already."))
        Entry.objects.filter(pk=mine.pk).update(withdrawn=True)
    games = Match.objects.filter(
        puzzle__tournament_id=tournament_id,
        kind=Match.Kind.DUPLICATE,
        status=Match.Status.ACTIVE,
        seats__player=player,
        seats__state=Seat.State.PLAYING,
    )
    for game_id in games.values_list("pk", flat=True):
        with contextlib.suppress(MoveRefused):  # every move made: the score stands
            play.resign(game_id, player)


def moved(deal_id: int) -> None:
    """After the commit of moves in games on the deal ``deal_id`` (once for all the moves of
    one change): deal the next step if it is live and they were the last awaited
    (``advance``)."""
    if Puzzle.objects.filter(pk=deal_id, dealt__isnull=False).exists():
        advance(deal_id)


def announce(deal_id: int) -> None:
    """After commit: tell each player of a game on the deal the new version of their page."""
    matches = list(
        Match.objects.filter(puzzle_id=deal_id, status=Match.Status.ACTIVE).select_related("puzzle")
    )
    news = {}
    for record in load_many(matches).values():
        for seat in record.seats:
            audience = audience_of(record.match, seat)
            if audience is not None:
                news[events.channel(record.match.pk, audience)] = events.changed(
                    version(view_of(record, seat))
                )
    events.publish(news)


def due_rounds(now: datetime) -> list[int]:
    """The live deals whose step's time is up."""
    return list(Puzzle.objects.filter(due__lte=now).values_list("pk", flat=True))


def due_games(now: datetime) -> list[int]:
    """The live duplicates running with no game being played whose next game is due: the
    first as soon as they start, each next one ``BREAK`` after the last one closed."""
    deals = Puzzle.objects.filter(tournament=OuterRef("pk"))
    last = deals.order_by("-number")
    running = Tournament.objects.filter(
        format=Tournament.Format.DUPLICATE,  # a real-time swiss is live too, without deals
        mode=Tournament.Mode.LIVE,
        status=Tournament.Status.RUNNING,
    ).annotate(
        played=Subquery(last.values("number")[:1]),
        closed=Subquery(last.values("closes")[:1]),
        playing=Exists(deals.filter(dealt__isnull=False)),
    )
    due = running.filter(
        Q(played__isnull=True) | Q(closed__lte=now - BREAK, played__lt=F("games")),
        playing=False,
    )
    return list(due.values_list("pk", flat=True))


def next_deal(tournament: Tournament) -> tuple[int, datetime] | None:
    """The number of the live duplicate's next game and when it is dealt, while it runs
    between two games (the first is dealt at the start)."""
    if tournament.status != Tournament.Status.RUNNING:
        return None
    last = tournament.deals.order_by("-number").first()
    if last is None or last.dealt is not None or last.closes is None:
        return None
    if last.number is None or last.number >= tournament.games:
        return None
    return last.number + 1, last.closes + BREAK


def deal_next(tournament_id: int, now: datetime | None = None) -> bool:
    """Deal the live tournament's next game if it is due (``due_games``); False if it is
    not, or was dealt meanwhile."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
            if (
                tournament.format != Tournament.Format.DUPLICATE
                or tournament.mode != Tournament.Mode.LIVE
                or tournament.status != Tournament.Status.RUNNING
            ):
                return False
            coming = next_deal(tournament) if tournament.deals.exists() else (1, now)
            if coming is None or coming[1] > now:
                return False
            deal_game(tournament, coming[0], now)
    except IntegrityError:
        return False  # dealt meanwhile
    return True


def run_due(now: datetime | None = None) -> dict[str, int]:
    """Start the live duplicates due, deal their games due and close the rounds whose
    time is up (the sweep, and the fast workers when the clock finds ``work_due``)."""
    now = now or timezone.now()
    done = {"start": 0, "deal": 0, "close": 0}
    for tournament_id in due_starts(now):
        done["start"] += tournaments.start(tournament_id, now)
    for tournament_id in due_games(now):
        done["deal"] += deal_next(tournament_id, now)
    for deal_id in due_rounds(now):
        done["close"] += close_round(deal_id, now)
    return done


def due_starts(now: datetime) -> list[int]:
    """The live duplicates due to start (a real-time swiss is ``swiss_rounds``')."""
    upcoming = Tournament.objects.filter(
        format=Tournament.Format.DUPLICATE,
        mode=Tournament.Mode.LIVE,
        status=Tournament.Status.UPCOMING,
        starts__lte=now,
    )
    return list(upcoming.values_list("pk", flat=True))


def work_due(now: datetime) -> bool:
    """Whether ``run_due`` has work now: what the clock asks before it sends the fast
    workers ``games.tasks.run_live`` (``clock.Ticker``)."""
    return bool(due_rounds(now) or due_starts(now) or due_games(now))


def current_deal(tournament: Tournament) -> Puzzle | None:
    """The live tournament's game being played, if one is."""
    return tournament.deals.filter(dealt__isnull=False).first()


@dataclass(frozen=True)
class Line:
    """A player of a live deal and their score so far."""

    player_id: int
    username: str
    score: int


#: Seconds a process keeps the order of a live deal's players for the pages that show it
#: (every entrant's page asks for it at once when a step is dealt): the others' scores a
#: page shows are at most that old, the reader's own is their seat's.
RANKED_FOR = 1.0
ranked_orders: dict[tuple, tuple[float, list[Line]]] = {}


def ranked(deal: Puzzle) -> list[Line]:
    """The players of the game on ``deal`` by score so far (ties by name), read once a
    ``RANKED_FOR`` per step by each process."""
    key, now = (deal.pk, deal.dealt, deal.due), time.monotonic()
    kept = ranked_orders.get(key)
    if kept is None or now - kept[0] > RANKED_FOR:
        seats = Seat.objects.filter(match__puzzle=deal).order_by("-score", "player__username")
        kept = (
            now,
            [Line(*row) for row in seats.values_list("player_id", "player__username", "score")],
        )
        for old, (made, _lines) in list(ranked_orders.items()):
            if now - made > RANKED_FOR:
                ranked_orders.pop(old, None)
        ranked_orders[key] = kept
    return kept[1]


def leaders(
    deal: Puzzle, user, count: int, mine: Seat | None = None
) -> tuple[list[tuple[int, Line]], tuple[int, Line] | None, int]:
    """The leaders of the game on ``deal`` so far: the first ``count`` lines (place, line)
    by score (a tie shares the place), the reader's own line when it is not among them, and
    how many play it. Scores only: nothing of the steps to come. ``mine``: the reader's
    seat on the deal, whose score is shown as it is now."""
    lines = ranked(deal)
    if mine is not None and user.is_authenticated:
        fresh = Line(user.pk, user.username, mine.score)
        others = [line for line in lines if line.player_id != user.pk]
        at = next(
            (
                i
                for i, o in enumerate(others)
                if (o.score, fresh.username) < (fresh.score, o.username)
            ),
            len(others),
        )
        lines = [*others[:at], fresh, *others[at:]]
    shown, place = [], 0
    for index, line in enumerate(lines[:count]):
        if index == 0 or line.score != lines[index - 1].score:
            place = index + 1  # a tie shares the place
        shown.append((place, line))
    own = None
    if user.is_authenticated and all(line.player_id != user.pk for _, line in shown):
        found = next((line for line in lines if line.player_id == user.pk), None)
        if found is not None:
            own = (sum(line.score > found.score for line in lines) + 1, found)
    return shown, own, len(lines)


def panel(match: Match, user, *, waiting: bool, mine: Seat | None = None) -> dict[str, Any]:
    """What the page of a game on a live deal shows beside it: the tournament, the step
    dealt and its time, whether the reader ``waiting`` for the next, and the leaders of the
    game so far with the reader's own line (``mine``: the reader's seat in ``match``)."""
    deal = match.puzzle
    if match.kind != Match.Kind.DUPLICATE or deal is None or deal.dealt is None:
        return {}
    lines, own, players = leaders(deal, user, LEADERS, mine)
    return {
        "live_deal": deal,
        "live_tournament": deal.tournament,
        "live_leaders": lines,
        "live_own": own,
        "live_players": players,
        "live_waiting": waiting and match.status == Match.Status.ACTIVE,
    }


def board(tournament: Tournament, user) -> dict[str, Any]:
    """What a live tournament's page shows of the game being played, to anybody who may
    read the page: its number, the step dealt of how many, the time left in it, the
    leaders (``BOARD`` lines) with the reader's own line, and the reader's game on it (an
    entrant's: the way to it, nothing of what it holds)."""
    deal = current_deal(tournament) if tournament.status == Tournament.Status.RUNNING else None
    if deal is None:
        return {}
    lines, own, players = leaders(deal, user, BOARD)
    mine = None
    if user.is_authenticated:
        mine = Match.objects.filter(puzzle=deal, seats__player=user).first()
    return {
        "deal": deal,
        "steps": puzzle_rules(tournament.game).puzzle_length,
        "leaders": lines,
        "own": own,
        "players": players,
        "mine": mine,
    }


def running_games(user) -> list[Match]:
    """The player's games on the live deals being played, still theirs to play."""
    if not user.is_authenticated:
        return []
    found = Match.objects.filter(
        puzzle__dealt__isnull=False,
        puzzle__tournament__status=Tournament.Status.RUNNING,
        status=Match.Status.ACTIVE,
        seats__player=user,
    )
    return list(found.select_related("puzzle__tournament").order_by("pk"))
