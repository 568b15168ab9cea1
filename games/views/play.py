"""Play now: choosing a game, a speed and the number of players, waiting in the pool (the
page polls every second, and opens the match by itself once the players are paired), leaving
it, or playing the bot offered after a while (``services.features.pools``)."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from games import accounts
from games.forms import PoolForm
from games.http import SiteRequest
from games.models import PoolEntry
from games.registry import GAMES, find_game
from games.services import MoveRefused
from games.services.features import pools
from games.views.common import bot_name, guest_limit_page, too_many_new_games

WAIT = "games/play_wait.html"


@never_cache
@require_http_methods(["GET", "POST"])
def play_now(request: SiteRequest) -> HttpResponse:
    """The pools offered (``?game=``: one game's only): a button per speed joins; a POST
    joins the pool it names (a visitor as a guest) and goes to the waiting page."""
    error, status = "", 200
    chosen = request.GET.get("game", "")
    if request.method == "POST":
        form = PoolForm(request.POST)
        chosen = request.POST.get("game", "")
        if not form.is_valid():
            error, status = _("Choose a game, a time per move and the number of players."), 400
        else:
            player, wait = accounts.playing(request)
            if player is None:
                return guest_limit_page(request, wait)
            data = form.cleaned_data
            try:
                pools.join(player, data["game"], data["speed"], data["players"])
                return redirect("play_wait")
            except MoveRefused as exc:
                error, status = str(exc), 400
    if chosen not in GAMES:
        chosen = ""
    context = {
        "games": _offered([chosen] if chosen else list(GAMES)),
        "chosen": chosen,
        "error": error,
        "live": _live_match(request),
        "waiting": _waiting(request),
    }
    return render(request, "games/play_now.html", context, status=status)


@never_cache
@require_GET
def wait(request: SiteRequest) -> HttpResponse:
    """The player's pool, live: how many wait and for how long, the bot offered after a
    while; the match once they are paired (htmx: the page is sent there). Each look is a
    contact: a player who stops looking leaves the pool."""
    if not request.user.is_authenticated:
        return redirect("play_now")
    state = pools.status(request.user)
    if state.match is not None:
        if request.htmx:
            return HttpResponseClientRedirect(state.match.get_absolute_url())
        return redirect(state.match)
    if state.entry is None and not request.htmx:
        messages.info(request, _("You are not waiting for a game: choose one."))
        return redirect("play_now")
    context = {
        "state": state,
        "entry": state.entry,
        "game_name": state.entry and find_game(state.entry.game).name,
        "seconds": state.entry and state.entry.speed.removesuffix("s"),
        "bot_name": state.bot and bot_name(state.bot),
        "keep": request.GET.get("keep") == "1",
    }
    return render(request, f"{WAIT}#status" if request.htmx else WAIT, context)


@require_POST
def leave(request: SiteRequest) -> HttpResponse:
    """Leave the pool."""
    if request.user.is_authenticated:
        pools.leave(request.user)
    messages.info(request, _("You left the pool."))
    return redirect("play_now")


@require_POST
def play_bot(request: SiteRequest) -> HttpResponse:
    """Leave the pool for a game against the bot offered."""
    if not request.user.is_authenticated:
        return redirect("play_now")
    if not accounts.is_guest(request):
        # A bot's moves are computed by the workers, which every match shares: limited.
        error = too_many_new_games(request)
        if error:
            messages.error(request, error)
            return redirect("play_wait")
    try:
        return redirect(pools.play_bot(request.user))
    except MoveRefused as exc:
        messages.error(request, str(exc))
        return redirect("play_wait")


def _offered(slugs: list[str]) -> list[dict]:
    """Each game's pools as the page offers them: its name and numbers of players."""
    return [
        {"slug": slug, "name": GAMES[slug].name, "players": pools.players_of(slug)}
        for slug in slugs
    ]


def _live_match(request: SiteRequest):
    return pools.live_match(request.user) if request.user.is_authenticated else None


def _waiting(request: SiteRequest) -> PoolEntry | None:
    if not request.user.is_authenticated:
        return None
    return PoolEntry.objects.filter(player=request.user, match__isnull=True).first()
