"""The end of a game on its page: the result's extras (a puzzle's par, the daily's count,
a solo game's best, the rating changes) and what the player may do next."""

from urllib.parse import urlencode

from django.urls import reverse

from games import accounts, services, web
from games.http import SiteRequest
from games.models import Match, RatingChange, Seat
from games.registry import find_game, puzzle_games
from games.services import MatchView
from games.services.features import puzzles
from games.services.match import finish


def ending(request: SiteRequest, mv: MatchView, seat_shown: Seat | None) -> dict:
    """What a finished match's page shows at its end, for its reader."""
    match = mv.match
    context: dict = {}
    if match.puzzle is not None:
        shown = puzzles.has_finished(request.user, match.puzzle)
        context["par"] = match.puzzle.par if shown else None
        context["par_pending"] = shown and match.puzzle.par is None
        if match.daily:
            context["counted"] = puzzles.counted_for_its_day(match)
            # A guest's attempt counts once they have an account (if none of its counts).
            context["counts_on_sign_up"] = (
                accounts.is_guest(request) and mv.is_player and finish.on_its_day(match)
            )
    if match.kind == Match.Kind.SOLO and seat_shown is not None:
        best = services.personal_best(seat_shown.player, match.game)
        context["best"] = best
        context["new_best"] = best is not None and seat_shown.score >= best
    context.update(what_next(request, mv))
    if match.rated:
        context["rating_changes"] = {
            c.player_id: c for c in RatingChange.objects.filter(match=match)
        }
    return context


def what_next(request: SiteRequest, mv: MatchView) -> dict:
    """What the end of a game offers its player next: the same game again (against the same
    bot, or a new match with the same players and options), the other games' tutorials and
    the daily puzzle."""
    match = mv.match
    if not mv.is_player:
        return {}
    bots = any(seat.bot for seat in mv.seats)
    between_people = match.kind == Match.Kind.MATCH and not bots and match.puzzle_id is None
    same = urlencode({"game": match.game, "again": match.pk})
    return {
        "again_bot": match.kind == Match.Kind.MATCH and bots and match.puzzle_id is None,
        "same_match_url": f"{reverse('new_match')}?{same}"
        if between_people and not accounts.is_guest(request)
        else "",
        "other_tutorials": [
            {"name": find_game(slug).name, "url": reverse("learn_game", args=[slug])}
            for slug, adapter in web.ADAPTERS.items()
            if slug != match.game and adapter.tutorial is not None
        ],
        "daily_puzzle": bool(puzzle_games()) and not match.daily,
    }
