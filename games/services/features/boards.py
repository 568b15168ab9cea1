"""Leaderboards: ratings (matches, puzzle challenges, puzzles, matches with bots), daily
puzzle streaks and best solo scores; and for a player who is not on one, why not yet.

Reads only: nothing here changes state.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import ratings
from games.models import Profile, Rating, SoloBest
from games.registry import GAMES, puzzle_game, puzzle_games
from games.services.features.puzzles import today
from games.services.match import bot_seats

#: A rating list shows players with a rated game in this many days.
ACTIVE_DAYS = 90
#: Rows on a board.
SIZE = 100

STREAKS = "streaks"
SOLO = "solo"


@dataclass(frozen=True)
class Board:
    """One list: ``kind`` is "rating", ``STREAKS`` or ``SOLO``; ``game`` and ``pool`` say
    which rating or which game's solo scores."""

    kind: str
    game: str
    pool: str
    label: str

    @property
    def query(self) -> str:
        if self.kind == "rating":
            return f"?game={self.game}&pool={self.pool}"
        if self.kind == SOLO:
            return f"?board={SOLO}&game={self.game}"
        return f"?board={self.kind}"


@dataclass(frozen=True)
class Row:
    player: User
    value: str
    games: int | None = None
    wins: int | None = None
    match_id: int | None = None


def boards() -> list[Board]:
    """Every leaderboard, in the order the page lists them."""
    pools = dict(Rating.Pool.choices)
    found = []
    for slug, rules in GAMES.items():
        for pool in Rating.Pool.values:
            if (
                pool in (Rating.Pool.MATCH, Rating.Pool.LIVE)
                or (pool in (Rating.Pool.PUZZLE, Rating.Pool.SOLVING) and slug in puzzle_games())
                or (pool == Rating.Pool.BOTS and bot_seats.plays(slug))
            ):
                found.append(Board("rating", slug, pool, f"{rules.name}: {pools[pool]}"))
    found.append(Board(STREAKS, puzzle_game(), "", _("Daily puzzle streaks")))
    for slug, rules in GAMES.items():
        if 1 in rules.players:  # a game with solo games
            label = _("%(game)s: best solo scores") % {"game": rules.name}
            found.append(Board(SOLO, slug, "", label))
    return found


def find(kind: str, game: str, pool: str) -> Board | None:
    """The board a request names (``kind`` "" for a rating list), or None."""
    kind = kind or "rating"
    for board in boards():
        if board.kind == kind and (
            kind == STREAKS or (board.game == game and (kind == SOLO or board.pool == pool))
        ):
            return board
    return None


def rows(board: Board) -> list[Row]:
    if board.kind == STREAKS:
        return _streaks()
    if board.kind == SOLO:
        return _best_solo(board.game)
    leaders = (
        Rating.objects.filter(
            game=board.game,
            pool=board.pool,
            games__gte=ratings.PROVISIONAL_GAMES,
            updated__gte=timezone.now() - timedelta(days=ACTIVE_DAYS),
        )
        .select_related("player")
        .order_by("-value", "player__username")[:SIZE]
    )
    return [Row(r.player, f"{r.value:.0f}", r.games, r.wins) for r in leaders]


def _streaks() -> list[Row]:
    """Current streaks (up to today, or yesterday while today is open), longest first: the
    runs kept with each profile (``finish.count_for_the_day``)."""
    day = today()
    running = (
        Profile.objects.filter(daily_streak_day__gte=day - timedelta(days=1), daily_streak__gt=0)
        .select_related("player")
        .order_by("-daily_streak", "player_id")[:SIZE]
    )
    return [Row(profile.player, str(profile.daily_streak)) for profile in running]


def _best_solo(game: str) -> list[Row]:
    """The best scores kept for each player (``finish.note_solo_best``), highest first."""
    best = (
        SoloBest.objects.filter(game=game)
        .exclude(player__profile__guest=True)
        .exclude(player__is_active=False)
        .select_related("player")
        .order_by("-score", "player_id")[:SIZE]
    )
    return [Row(b.player, str(b.score), match_id=b.match_id) for b in best]


def why_absent(board: Board, player, shown: list[Row]) -> str:
    """Why ``player`` is not on ``board``, the rows ``shown`` of it (empty when they are)."""
    if not player.is_authenticated or any(row.player.pk == player.pk for row in shown):
        return ""
    if Profile.objects.filter(player=player, guest=True).exists():
        return _("Guests are on no leaderboard: sign up to be on them.")
    if board.kind == STREAKS:
        return _("You are not on this list: you have no daily puzzle streak running.")
    if board.kind == SOLO:
        if not SoloBest.objects.filter(player=player, game=board.game).exists():
            return _("You are not on this list: you have not finished a solo game yet.")
        return _("You are not on this list: your best solo score is below its last place.")
    rating = Rating.objects.filter(player=player, game=board.game, pool=board.pool).first()
    if rating is None or rating.games < ratings.PROVISIONAL_GAMES:
        played = rating.games if rating else 0
        return ngettext(
            "You are not on this list yet: it takes %(needed)s rated games and you have "
            "played %(played)s.",
            "You are not on this list yet: it takes %(needed)s rated games and you have "
            "played %(played)s.",
            played,
        ) % {"needed": ratings.PROVISIONAL_GAMES, "played": played}
    if rating.updated < timezone.now() - timedelta(days=ACTIVE_DAYS):
        return ngettext(
            "You are not on this list: your last rated game is more than %(days)s day old.",
            "You are not on this list: your last rated game is more than %(days)s days old.",
            ACTIVE_DAYS,
        ) % {"days": ACTIVE_DAYS}
    return _("You are not on this list: your rating is below its last place.")
