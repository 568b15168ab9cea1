"""Invitation links: the page a link opens (what the match is, who invites) and the seat it
takes, signed in or as a guest (``services.features.links``)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from games import accounts, web
from games.models import InviteLink
from games.registry import find_game
from games.services import MoveRefused
from games.services.features import links
from games.views.common import guest_limit_page


@never_cache
@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation (GET) and taking its seat (POST, never on a GET: a link opened by a
    preview or a crawler takes nothing). 404 for a link there is not, 410 once it no longer
    works, each with a word on why; a refusal shows the page again with it (400)."""
    try:
        shown = links.invitation(token, request.user)
    except InviteLink.DoesNotExist:
        return _page(request, None, status=404)
    if shown.seat is not None:
        return redirect(shown.match)
    if shown.gone:
        return _page(request, shown, status=410)
    if request.method == "GET":
        return _page(request, shown)
    if shown.refusal:
        return _page(request, shown, status=400)
    player, wait = accounts.playing(request)
    if player is None:
        return guest_limit_page(request, wait)
    try:
        match = links.join(token, player)
    except MoveRefused as exc:
        shown = links.invitation(token, request.user)
        if shown.gone:
            return _page(request, shown, status=410)
        return _page(request, shown, status=400, error=str(exc))
    return redirect(match)


def _page(request: HttpRequest, shown, *, status: int = 200, error: str = "") -> HttpResponse:
    context = {"shown": shown, "error": error or (shown.refusal if shown else "")}
    if shown is None:
        context["gone"] = _("There is no such invitation: check that the whole link was copied.")
    else:
        match = shown.match
        context.update(
            match=match,
            game_name=find_game(match.game).name,
            described=web.adapter_for(match.game).describe(match.options),
            gone=shown.gone,
        )
    return render(request, "games/invitation.html", context, status=status)
