"""The rematch offer at the end of a real-time match: a player accepts it, withdraws, or
declines it for everybody (``services.features.rematch``); each leads to the rematch once it
has started."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from games.http import SiteRequest
from games.models import Match, Seat
from games.services import MoveRefused
from games.services.features import rematch
from games.views.matches import game_page


@login_required
@require_POST
def accept(request: SiteRequest, match_id: int) -> HttpResponse:
    """Accept the rematch: back to the match's page, which waits for the others, or on to
    the rematch once every player has accepted."""
    return _answer(request, match_id, rematch.accept)


@login_required
@require_POST
def withdraw(request: SiteRequest, match_id: int) -> HttpResponse:
    """No rematch after all (on to the rematch if it has started already)."""
    return _answer(request, match_id, rematch.withdraw)


@login_required
@require_POST
def decline(request: SiteRequest, match_id: int) -> HttpResponse:
    """No rematch, for anybody: back to the match's page, which says so (on to the rematch
    if it has started already)."""
    return _answer(request, match_id, rematch.decline)


def _answer(request: SiteRequest, match_id: int, answer) -> HttpResponse:
    try:
        started = answer(match_id, request.user)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        return game_page(request, match_id, status=400, extra={"rematch_error": str(exc)})
    if started is not None:
        return redirect(started)
    return redirect("game", match_id)
