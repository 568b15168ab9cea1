"""Learn to play: each game's short guided game (its web adapter's ``tutorial``), on the
site's own pages, for everybody. Nothing is stored and nobody is made a guest: the progress
is the page's address, read again (and checked by the rules) on every request; a move is a
POST answered with the next step's address, a refused one with why, changing nothing."""

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import push_url, replace_url

from games import web
from games.http import SiteRequest
from games.registry import find_game
from games.web.base import WrongMove


def _tutorials() -> list[dict]:
    """Every game that has a tutorial: its slug, name and what it teaches."""
    return [
        {"slug": slug, "name": find_game(slug).name, "summary": adapter.tutorial.summary}
        for slug, adapter in web.ADAPTERS.items()
        if adapter.tutorial is not None
    ]


@require_GET
def learn(request: SiteRequest) -> HttpResponse:
    """The tutorials, one line each."""
    return render(request, "games/learn.html", {"tutorials": _tutorials()})


def _tutorial(game: str):
    try:
        tutorial = web.adapter_for(game).tutorial
    except ValueError:
        tutorial = None
    if tutorial is None:
        raise Http404("No such game.")
    return tutorial


def _partial(request: SiteRequest) -> bool:
    """Whether the page's own controls ask (htmx), not a whole page (Back with nothing kept)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def _show(request: SiteRequest, tutorial, progress, *, status=200, error="", moved=False):
    """The step ``progress`` is at: the page, or the part of it the request's control
    replaces (the turn for a preview, the lesson for a move), with the address to show: a
    new entry in the browser's history after a move (``moved``), else this one kept with
    what it previews, so that a reload shows it again."""
    context = {
        "game": tutorial.slug,
        "game_name": find_game(tutorial.slug).name,
        "error": error,
        **tutorial.context(progress),
    }
    if not _partial(request):
        return render(request, tutorial.template, context, status=status)
    part = "turn" if request.htmx.target == "turn" else "lesson"
    response = render(request, f"{tutorial.template}#{part}", context, status=status)
    if moved:
        return push_url(response, tutorial.address(progress))
    return replace_url(response, tutorial.address(progress, preview=True))


@require_http_methods(["GET", "POST"])
def learn_game(request: SiteRequest, game: str) -> HttpResponse:
    """A game's tutorial at the step its address (or form) holds; a POST is a move."""
    tutorial = _tutorial(game)
    posted = request.method == "POST"
    try:
        progress = tutorial.read(request.POST if posted else request.GET)
    except ValueError as exc:
        context = {"tutorials": _tutorials(), "error": str(exc), "game": tutorial.slug}
        return render(request, "games/learn.html", context, status=400)
    if not posted:
        return _show(request, tutorial, progress)
    try:
        after = tutorial.move(progress, request.POST)
    except WrongMove as wrong:
        return _show(request, tutorial, wrong.shown, status=400, error=str(wrong))
    if not _partial(request):
        return redirect(tutorial.address(after))
    return _show(request, tutorial, after, moved=True)
