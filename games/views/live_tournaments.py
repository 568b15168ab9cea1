"""A live duplicate tournament's page while it runs: the game being played, its round and
the time left in it, the way to the reader's own game, and its leaders, polled by the page
every 2 s (``live_board``); and the games of live tournaments a player has under way: the
page of a finished game of a tournament looks for the player's next one (``next_game``)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh

from games import services
from games.http import SiteRequest
from games.models import Match, Tournament
from games.services.features import live_duplicate, next_games, tournaments
from games.views import endings

BOARD = "games/tournaments/_live.html"
NEXT = "games/tournaments/next_game.html"


def is_live_duplicate(tournament: Tournament) -> bool:
    return (
        tournament.format == Tournament.Format.DUPLICATE and tournament.mode == Tournament.Mode.LIVE
    )


def live_context(tournament: Tournament, user) -> dict:
    """What a live duplicate tournament's page adds (``live_tournament``, ``board``); nothing
    for another tournament (a real-time swiss is live too: its tables are its own)."""
    if not is_live_duplicate(tournament):
        return {}
    return {
        "live_tournament": True,
        "board": live_duplicate.board(tournament, user),
        "coming": live_duplicate.next_deal(tournament),
    }


@never_cache
@require_GET
def live_board(request: SiteRequest, tournament_id: int) -> HttpResponse:
    """The game being played alone: the page polls it while the tournament runs. Once the
    page shows another game than the one played (``?game=``) or another state (``?state=``),
    the whole page is fetched again: its games and standings changed too."""
    try:
        key = request.GET.get("key", "")
        tournament = tournaments.find(tournament_id, request.user, key)
    except Tournament.DoesNotExist:
        raise Http404("No tournament has this number.") from None
    if not is_live_duplicate(tournament):
        raise Http404("This tournament is not a live duplicate.")
    context = {**live_context(tournament, request.user), "tournament": tournament, "key": key}
    board = context["board"]
    shown = str(board["deal"].number if board else 0)
    if request.GET.get("state", tournament.status) != tournament.status or (
        request.GET.get("game", shown) != shown
    ):
        # The next game dealt: the entrant's opens at once (its clock runs).
        game = next_games.opened_at_once(tournament, request.user)
        if game is not None:
            return HttpResponseClientRedirect(game.get_absolute_url())
        return HttpResponseClientRefresh()
    return render(request, BOARD, context)


@never_cache
@require_GET
def next_game(request: SiteRequest, match_id: int) -> HttpResponse:
    """The finished game's look for its player's next game of the tournament (polled by its
    page): once under way, a game played live is opened at once (its clock runs), one by
    post is linked; until then the page looks again."""
    try:
        mv = services.view_match(match_id, request.user)
    except Match.DoesNotExist:
        raise Http404("No game of yours has this number.") from None
    if not mv.is_player or not mv.match.is_finished:
        raise Http404("No finished game of yours has this number.")
    context = {"match": mv.match, **endings.after_game(mv, request.user)}
    found = context.get("next_match")
    if found is not None and request.htmx and context["next_live"]:
        return HttpResponseClientRedirect(found.get_absolute_url())
    return render(request, NEXT, context)
