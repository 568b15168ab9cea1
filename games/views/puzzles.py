"""Puzzles and challenges: a puzzle's page, the daily puzzle and its archive, challenges
and rematches."""

from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import accounts
from games.forms import ChallengeForm
from games.http import SiteRequest
from games.inputs import parse_int
from games.models import ChallengeOffer, DailyResult, Puzzle
from games.services import MoveRefused
from games.services.features import puzzles
from games.views.common import create_form, guest_limit_page, shown_start, too_many_new_games
from games.views.matches import game_page


@require_GET
def puzzle_page(request: SiteRequest, puzzle_id: int) -> HttpResponse:
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id, tournament=None)
    if puzzle.daily_on is not None and puzzle.daily_on > puzzles.today():
        raise Http404("This puzzle is not published yet.")
    context = {
        "puzzle": puzzle,
        "start": shown_start(puzzle),
        "show_par": puzzles.has_finished(request.user, puzzle),
    }
    return render(request, "games/puzzle.html", context)


@require_POST
def play_puzzle(request: SiteRequest, puzzle_id: int) -> HttpResponse:
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id, tournament=None)
    player, wait = accounts.playing(request)
    if player is None:
        return guest_limit_page(request, wait)
    return redirect(puzzles.start_puzzle(player, puzzle))


@require_GET
def daily(request: SiteRequest) -> HttpResponse:
    puzzle = puzzles.publish_daily()
    day = puzzle.daily_on
    assert day is not None  # the day's puzzle
    results = list(DailyResult.objects.filter(day=day).select_related("player")[:100])
    context: dict[str, Any] = {
        "puzzle": puzzle,
        "day": day,
        "start": shown_start(puzzle),
        "results": results,
        "show_par": puzzles.has_finished(request.user, puzzle),
    }
    if request.user.is_authenticated:
        context["counted"] = next((r for r in results if r.player_id == request.user.pk), None)
        context["in_progress"] = puzzles.daily_attempt(request.user, puzzle)
        context["streak"] = puzzles.streak(request.user)
    return render(request, "games/daily.html", context)


@require_POST
def play_daily(request: SiteRequest) -> HttpResponse:
    player, wait = accounts.playing(request)
    if player is None:
        return guest_limit_page(request, wait)
    return redirect(puzzles.play_daily(player))


@require_GET
def daily_archive(request: SiteRequest) -> HttpResponse:
    return render(request, "games/daily_archive.html", {"rows": puzzles.archive()})


@accounts.account_required
@require_http_methods(["GET", "POST"])
def new_challenge(request: SiteRequest) -> HttpResponse:
    def create(data):
        offer = puzzles.offer_challenge(
            request.user,
            invite=data["invite"],
            players=data["players"],
            open=data["open"],
            rated=data["rated"],
            time_control=data["time_control"],
            link=data["link"],
        )
        return redirect("challenge_offer", offer.pk)

    return create_form(request, ChallengeForm, "games/new_challenge.html", create)


@accounts.account_required
@require_http_methods(["GET", "POST"])
def challenge_offer(request: SiteRequest, offer_id: int) -> HttpResponse:
    offer = get_object_or_404(
        ChallengeOffer.objects.select_related("first", "second"),
        pk=offer_id,
        challenger=request.user,
    )
    error = ""
    if request.method == "POST":
        try:
            puzzle_id = parse_int(request.POST.get("puzzle", ""), minimum=1)
            return redirect(puzzles.pick_challenge(offer.pk, request.user, puzzle_id))
        except ValueError as exc:
            error = str(exc) if isinstance(exc, MoveRefused) else _("Pick one of the two puzzles.")
    if offer.match is not None and not error:
        return redirect(offer.match)
    choices = [(p, shown_start(p)) for p in offer.puzzles]
    context = {"offer": offer, "choices": choices, "error": error}
    return render(request, "games/challenge_offer.html", context, status=400 if error else 200)


@accounts.account_required
@require_POST
def rematch(request: SiteRequest, match_id: int) -> HttpResponse:
    error = too_many_new_games(request)
    if error:
        return game_page(request, match_id, status=429, error=error)
    try:
        offer = puzzles.rematch(match_id, request.user)
    except MoveRefused as exc:
        return game_page(request, match_id, status=400, error=str(exc))
    return redirect("challenge_offer", offer.pk)
