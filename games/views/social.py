"""Players among themselves: following a player and the page "Following", blocking, and
finding a player by the beginning of their name."""

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games import accounts
from games.http import SiteRequest
from games.infra import limits
from games.names import shown
from games.services import MoveRefused
from games.services.features import blocks, follows, guests, search
from games.views.common import asked_page

PROFILE_SOCIAL = "games/profile_social.html"


def profile_context(request: SiteRequest, player: User) -> dict:
    """What a profile shows of the player among others: how many follow them and how many
    they follow, and what the reader may do (follow or unfollow, block or unblock)."""
    followers, following = follows.counts(player)
    reader = request.user
    context = {
        "player": player,
        "followers": followers,
        "following": following,
        "own": reader.is_authenticated and reader.pk == player.pk,
        # Guests and closed accounts are neither followed nor blocked.
        "social": player.is_active and not guests.is_guest(player),
    }
    if reader.is_authenticated and not accounts.is_guest(request) and not context["own"]:
        context["follows"] = follows.follows(reader, player)
        context["blocked"] = blocks.blocks(reader.pk, player.pk)
        context["may_act"] = True
    return context


def _act(request: SiteRequest, username: str, action, done: str) -> HttpResponse:
    """Do ``action(reader, player)`` for the reader on the player ``username``; answer an
    htmx request with the profile's part that changed, any other with the page to go back
    to (``next``, else the profile) and a word on what was done (``done``) or refused."""
    player = get_object_or_404(User, username=username)
    error = ""
    wait = limits.over_limit(request, "social", "user", limits.SOCIAL_ACTIONS)
    if wait:
        error = _("Too many follows and blocks. Try again in %(wait)s minutes.") % {"wait": wait}
    else:
        try:
            action(request.user, player)
        except MoveRefused as exc:
            error = str(exc)
    if request.htmx:
        context = {**profile_context(request, player), "error": error}
        return render(request, PROFILE_SOCIAL, context, status=400 if error else 200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, done % {"player": shown(player.username)})
    return redirect(_next(request) or reverse("profile", args=[player.username]))


def _next(request: SiteRequest) -> str:
    """The page of this site a form asks to come back to (``next``), or ""."""
    wanted = request.POST.get("next", "")
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return ""


@accounts.account_required
@require_POST
def follow(request: SiteRequest, username: str) -> HttpResponse:
    return _act(request, username, follows.follow, _("You follow %(player)s."))


@accounts.account_required
@require_POST
def unfollow(request: SiteRequest, username: str) -> HttpResponse:
    return _act(request, username, follows.unfollow, _("You no longer follow %(player)s."))


@accounts.account_required
@require_POST
def block(request: SiteRequest, username: str) -> HttpResponse:
    return _act(request, username, blocks.block, _("You blocked %(player)s."))


@accounts.account_required
@require_POST
def unblock(request: SiteRequest, username: str) -> HttpResponse:
    return _act(request, username, blocks.unblock, _("You unblocked %(player)s."))


@accounts.account_required
@require_GET
def following(request: SiteRequest) -> HttpResponse:
    """Whom the player follows, with what each plays now and their ratings, by name and
    ``follows.FOLLOWED_PER_PAGE`` a page (``?page=``; a page there is not is answered with a
    word, a 400 and the first); a box to find a player."""
    followers, _following = follows.counts(request.user)
    pages = Paginator(follows.followed(request.user), follows.FOLLOWED_PER_PAGE)
    page, error = asked_page(
        request, pages, _("There is no such page of players: here is the first.")
    )
    context = {
        "entries": follows.following(request.user, page.object_list),
        "page": page,
        "followers": followers,
        "error": error,
    }
    return render(request, "games/following.html", context, status=400 if error else 200)


@require_GET
def players(request: SiteRequest) -> HttpResponse:
    """The players whose name begins with ``?q=`` (``services.features.search``): the list alone for
    htmx (the suggestions under an invitation field, the box of "Following"), else a page."""
    prefix = request.GET.get("q", "")
    error = ""
    try:
        found = search.players(prefix, request.user)
    except ValueError as exc:
        found, error = [], str(exc)
    context = {"found": found, "q": prefix.strip(), "error": error}
    status = 400 if error else 200
    if request.htmx:
        return render(request, "games/players.html#results", context, status=status)
    return render(request, "games/players.html", context, status=status)
