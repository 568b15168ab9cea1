"""What a player's home page shows: their matches (with their own view of each, for a small
picture), invitations, the daily puzzle, their ratings, open seats and their last results.

Reads only, in a number of queries that does not grow with the number of matches.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from typing import NamedTuple

from django.db.models import F
from django.utils import timezone

from games import ratings
from games.models import DailyResult, Match, Puzzle, Rating, Seat, Tournament
from games.registry import find_game
from games.services.features import puzzles
from games.services.match.matchview import MatchView
from games.services.match.play import glances, owes_move

#: Matches shown with a picture of the player's own view; more are listed by name.
PICTURED = 12
#: Finished games and open seats listed.
RECENT = 8
SEEKS = 6
#: Daily results read back for a streak (a longer one is shown as this long).
STREAK_DAYS = 400
_MATCHES = (Match.Kind.MATCH, Match.Kind.CHALLENGE)


class Other(NamedTuple):
    """Another player's seat in one of the player's matches, as the list names it."""

    name: str
    bot: str
    state: str


@dataclass
class Entry:
    """One of the player's matches: their seat (with its match), the others' seats, and their
    view of it (None: not pictured), which the page draws as ``picture``."""

    seat: Seat
    others: list[Other]
    view: MatchView | None = None
    picture: str = ""

    @property
    def taken(self) -> int:
        """Seats taken (an invitation is not taken until accepted)."""
        states = [self.seat.state, *(other.state for other in self.others)]
        return sum(1 for state in states if state != Seat.State.INVITED)


@dataclass
class Dashboard:
    your_move: list[Entry]
    waiting: list[Entry]
    invitations: list[Entry]
    not_started: list[Entry]
    solo: list[Seat]
    recent: list[Entry]
    seeks: list[Match]
    ratings: list[tuple[str, Rating, bool]]
    daily: Puzzle | None
    daily_players: int
    streak: int
    #: Their score of the day's puzzle, once it counts.
    daily_score: int | None
    daily_open: Seat | None
    tournament_games: list[tuple[Puzzle, Match | None]]
    #: The tournaments the player entered that have not begun, soonest first.
    tournaments_ahead: list[Tournament]


def _entries(seats: list[Seat]) -> list[Entry]:
    """The player's ``seats`` with the other seats of their matches (one query)."""
    others: dict[int, list[Other]] = defaultdict(list)
    for match_id, name, bot, state in (
        Seat.objects.filter(match_id__in={seat.match_id for seat in seats})
        .exclude(pk__in=[seat.pk for seat in seats])
        .order_by("match_id", "index")
        .values_list("match_id", "player__username", "bot", "state")
    ):
        others[match_id].append(Other(name, bot, state))
    return [Entry(seat, others[seat.match_id]) for seat in seats]


def dashboard(player, seeks) -> Dashboard:
    """``player``'s home page; ``seeks``: the open matches they may join (the lobby's)."""
    mine = Seat.objects.filter(player=player).select_related(
        "match__puzzle__tournament", "match__tournament"
    )
    # Every game of theirs not over yet, in one query with the others' seats in a second.
    current = list(
        mine.filter(finished=None, match__status__in=[Match.Status.ACTIVE, Match.Status.WAITING])
        .exclude(state__in=[Seat.State.RESIGNED, Seat.State.DROPPED])
        .select_related("match__created_by")
        .order_by(F("deadline").asc(nulls_last=True), "-match__started", "-match__created", "id")
    )
    entries = _entries([s for s in current if s.match.kind in _MATCHES])
    running = [e for e in entries if e.seat.match.status == Match.Status.ACTIVE]
    your_move = [e for e in running if owes_move(e.seat)]
    waiting = [e for e in running if not owes_move(e.seat)]
    pictured = (your_move + waiting)[:PICTURED]
    views = glances([e.seat for e in pictured])
    for entry in pictured:
        entry.view = views[entry.seat.match_id]
    pending = [e for e in entries if e.seat.match.status == Match.Status.WAITING]
    finished = _entries(list(mine.filter(finished__isnull=False).order_by("-finished")[:RECENT]))
    held = Rating.objects.filter(player=player, games__gt=0).order_by("game", "pool")
    daily = puzzles.daily_puzzle()  # published by the hourly job (or the daily page)
    day = puzzles.today()
    results = dict(
        DailyResult.objects.filter(
            player=player, day__lte=day, day__gt=day - timedelta(days=STREAK_DAYS)
        ).values_list("day", "score")
    )
    return Dashboard(
        your_move=your_move,
        waiting=waiting,
        invitations=[e for e in pending if e.seat.state == Seat.State.INVITED],
        not_started=[e for e in pending if e.seat.state != Seat.State.INVITED],
        solo=[
            s
            for s in current
            if s.match.kind == Match.Kind.SOLO and s.match.status == Match.Status.ACTIVE
        ][:RECENT],
        recent=finished,
        seeks=list(seeks[:SEEKS]),
        ratings=[(find_game(r.game).name, r, ratings.is_provisional(r.games)) for r in held],
        daily=daily,
        daily_players=_finished_today(daily),
        streak=puzzles.streak_in(set(results), day),
        daily_score=results.get(day),
        daily_open=next(
            (s for s in current if daily and s.match.daily and s.match.puzzle_id == daily.pk),
            None,
        ),
        tournament_games=open_deals(player, current),
        tournaments_ahead=list(
            Tournament.objects.filter(
                status=Tournament.Status.UPCOMING, entries__player=player
            ).order_by("starts", "pk")[:RECENT]
        ),
    )


def open_deals(player, current: list[Seat]) -> list[tuple[Puzzle, Match | None]]:
    """The games of the running tournaments at one's own pace that ``player`` entered and
    may still play: each deal open now (with its tournament) and their game on it, begun
    (among ``current``, their games not over) or not (None), soonest to close first."""
    now = timezone.now()
    # (a match of no deal is left out: a NULL in NOT IN would exclude every deal)
    finished = Match.objects.filter(
        seats__player=player, status=Match.Status.FINISHED, puzzle__isnull=False
    )
    deals = (
        Puzzle.objects.filter(
            tournament__status=Tournament.Status.RUNNING,
            tournament__mode=Tournament.Mode.ASYNC,
            tournament__format=Tournament.Format.DUPLICATE,
            tournament__entries__player=player,
            closes__gt=now,
        )
        .exclude(opens__gt=now)
        .exclude(pk__in=finished.values("puzzle_id"))
        .select_related("tournament")
        .order_by("closes", "pk")
    )
    begun = {s.match.puzzle_id: s.match for s in current if s.match.kind == Match.Kind.DUPLICATE}
    return [(deal, begun.get(deal.pk)) for deal in deals[:RECENT]]


def _finished_today(daily: Puzzle | None) -> int:
    if daily is None or daily.daily_on is None:
        return 0
    return DailyResult.objects.filter(day=daily.daily_on).count()


def front_page() -> tuple[Puzzle | None, int]:
    """What a visitor's home page shows of the daily puzzle: it (None until the day's is
    published), and how many players have finished it."""
    daily = puzzles.daily_puzzle()
    return daily, _finished_today(daily)


__all__ = ["PICTURED", "Dashboard", "Entry", "dashboard", "front_page"]
