"""Players and boards: the home page (a visitor's front page, a player's dashboard), the
notifications, a player's profile and the leaderboards."""

from functools import lru_cache

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from games import notices, ratings, services, web
from games.http import AccountRequest, SiteRequest
from games.models import Notification, PlayerStats, Rating, Seat
from games.registry import GAMES, default_game, find_game, puzzle_game
from games.services.features import boards, dashboard, live_duplicate, puzzles, watching
from games.services.match import bot_seats
from games.views.common import (
    asked_page,
    bot_choices,
    bot_name,
    game_names,
    open_seeks,
    shown_start,
)
from games.views.social import profile_context
from games.web.charts import rating_charts


@require_GET
def home(request: SiteRequest) -> HttpResponse:
    """A visitor's front page: both games, ready to play at once, and the daily puzzle; a
    player's dashboard: their matches (their move first), invitations, the daily puzzle,
    ratings, open seats and last results."""
    context: dict = {"games": _game_cards(), "game_names": game_names()}
    if not request.user.is_authenticated:
        daily, players = dashboard.front_page()
        context.update(daily=daily, daily_players=players, start=daily and shown_start(daily))
        return render(request, "games/home.html", context)
    board = dashboard.dashboard(request.user, open_seeks(request.user))
    for entry in board.your_move + board.waiting:
        if entry.view is not None:
            entry.picture = web.adapter_for(entry.seat.match.game).glance(entry.view)
    context.update(board=board, start=board.daily and shown_start(board.daily))
    context["running_games"] = live_duplicate.running_games(request.user)
    if request.htmx and request.GET.get("part") == "matches":
        return render(request, "games/home.html#matches", context)
    return render(request, "games/home.html", context)


def _game_cards() -> list[dict]:
    """Each game as the home page offers it: a picture, a line, and how to start it."""
    return _game_cards_in(translation.get_language(), tuple(GAMES))


@lru_cache(maxsize=8)
def _game_cards_in(language: str, games: tuple[str, ...]) -> list[dict]:
    """``_game_cards`` in ``language`` (the active one): made once per language and list of
    games."""
    offered = []
    for slug, rules in GAMES.items():
        adapter = web.adapter_for(slug)
        offered.append(
            {
                "slug": slug,
                "name": rules.name,
                "tagline": adapter.tagline,
                "picture": adapter.picture(),
                "solo": 1 in rules.players,
                "bots": bot_choices(slug),
            }
        )
    return offered


#: News on a page of the notifications.
NEWS_PER_PAGE = 30


@login_required
@require_http_methods(["GET", "POST"])
def notifications(request: AccountRequest) -> HttpResponse:
    """The player's "your move" notifications (one per match where the move is theirs) above
    their news (results, invitations, challenges), newest first and NEWS_PER_PAGE a page
    (``?page=``; a page there is not is answered with a word, a 400 and the first)."""
    mine = Notification.objects.filter(player=request.user)
    if request.method == "POST":
        mine.filter(read=False).update(read=True)
        return redirect("notifications")
    news = Paginator(
        mine.filter(kind=Notification.Kind.INFO).select_related("match"), NEWS_PER_PAGE
    )
    page, error = asked_page(request, news, _("There is no such page of news: here is the first."))
    moves = mine.filter(kind=Notification.Kind.MOVE).select_related("match")
    shown = notices.say_all([*(moves if page.number == 1 else []), *page.object_list])
    context = {
        "moves": [n for n in shown if n.kind == Notification.Kind.MOVE],
        "news": [n for n in shown if n.kind == Notification.Kind.INFO],
        "page": page,
        "error": error,
    }
    return render(request, "games/notifications.html", context, status=400 if error else 200)


@require_GET
def profile(request: SiteRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    # The figures kept by the task that follows each finished game; counted here only until
    # it first ran.
    stats = {s.game: s for s in PlayerStats.objects.filter(player=player)} or {
        s.game: s for s in services.figures_of(player.pk)
    }
    held = {(r.game, r.pool): r for r in Rating.objects.filter(player=player)}
    puzzle_rating = held.pop((puzzle_game(), Rating.Pool.PUZZLE), None)
    solving = held.pop((puzzle_game(), Rating.Pool.SOLVING), None)
    recent = (
        Seat.objects.filter(player=player, finished__isnull=False)
        .select_related("match__puzzle__tournament", "match__tournament")
        .order_by("-finished")[:20]
    )
    current = watching.current_games(player, request.user)
    # The viewer's own games among them are theirs to play, not to watch.
    playing_in = set()
    if request.user.is_authenticated and request.user != player:
        playing_in = set(
            Seat.objects.filter(
                player=request.user, match_id__in=[seat.match_id for seat in current]
            ).values_list("match_id", flat=True)
        )
    strength = bot_seats.strength_of(player)
    context = {
        "player": player,
        "figures": _figures(player, stats, held),
        "puzzle_rating": puzzle_rating,
        "puzzle_provisional": puzzle_rating is not None
        and ratings.is_provisional(puzzle_rating.games),
        "solving": solving,
        "solving_provisional": solving is None or ratings.is_provisional(solving.games),
        "streak": puzzles.streak(player),
        "recent": recent,
        "current": current,
        "playing_in": playing_in,
        "bot": bot_name(strength) if strength else "",
        "bot_strength": strength,
        **profile_context(request, player),
    }
    return render(request, "games/profile.html", context)


def _figures(player, stats: dict[str, PlayerStats], held: dict) -> list[dict]:
    """The player's figures in each game: the default game's always, then every other game
    they finished a game of or hold a rating in, in the site's order. Each with the game's
    match rating and its chart, the game's other ratings (as against bots), the kept
    figures (None: none yet), and whether the game has solo games."""
    shown = [
        slug
        for index, slug in enumerate(GAMES)
        if index == 0 or slug in stats or any(game == slug for game, _pool in held)
    ]
    charts = rating_charts(player, shown, Rating.Pool.MATCH)
    figures = []
    for slug, chart in zip(shown, charts, strict=True):
        rating = held.get((slug, Rating.Pool.MATCH))
        others = [
            (r, ratings.is_provisional(r.games))
            for (game, pool), r in sorted(held.items())
            if game == slug and pool != Rating.Pool.MATCH
        ]
        figures.append(
            {
                "slug": slug,
                "name": find_game(slug).name,
                "solo": 1 in find_game(slug).players,
                "stats": stats.get(slug),
                "rating": rating,
                "provisional": rating is not None and ratings.is_provisional(rating.games),
                "others": others,
                "chart": chart,
            }
        )
    return figures


@require_GET
def leaderboard(request: SiteRequest) -> HttpResponse:
    """One leaderboard: a rating list (``?game=``, ``?pool=``), the daily streaks
    (``?board=streaks``) or a game's best solo scores (``?board=solo&game=``)."""
    board = boards.find(
        request.GET.get("board", ""),
        request.GET.get("game", default_game()),
        request.GET.get("pool", Rating.Pool.MATCH),
    )
    if board is None:
        raise Http404("No such leaderboard.")
    shown = boards.rows(board)
    context = {
        "board": board,
        "rows": shown,
        "boards": boards.boards(),
        "absent": boards.why_absent(board, request.user, shown),
        "active_days": boards.ACTIVE_DAYS,
        "needed": ratings.PROVISIONAL_GAMES,
    }
    return render(request, "games/leaderboard.html", context)
