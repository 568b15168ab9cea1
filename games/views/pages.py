"""Pages about the site: how a game is played, the privacy page (what is kept, the cookies),
the language switch and the favicon."""

from django.conf import settings
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponsePermanentRedirect,
    HttpResponseRedirect,
)
from django.shortcuts import render
from django.templatetags.static import static
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST, require_safe
from django.views.i18n import set_language

from games import web
from games.context_processors import THEME_COOKIE, THEMES
from games.infra.middleware import SESSION_LANGUAGE
from games.models import Profile
from games.registry import find_game


@require_POST
def language(request: HttpRequest) -> HttpResponse:
    """The footer's language switch (Django's ``set_language``); a signed-in player's choice
    is also saved in their settings."""
    response = set_language(request)
    code = request.POST.get("language", "")
    if request.user.is_authenticated and code in dict(settings.LANGUAGES):
        profile, _made = Profile.objects.get_or_create(player=request.user)
        profile.language = code
        profile.save(update_fields=["language"])
        request.session[SESSION_LANGUAGE] = code
    return response


@require_POST
def theme(request: HttpRequest) -> HttpResponse:
    """The footer's theme switch: light, dark, or as the system says (no cookie), for a
    year, on this browser; back to the page it was sent from."""
    chosen = request.POST.get("theme", "")
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = "/"
    response = HttpResponseRedirect(back)
    if chosen in THEMES:
        response.set_cookie(
            THEME_COOKIE,
            chosen,
            max_age=365 * 24 * 3600,
            samesite="Lax",
            httponly=True,
            secure=request.is_secure(),
        )
    elif chosen == "auto":
        response.delete_cookie(THEME_COOKIE, samesite="Lax")
    else:
        return HttpResponseBadRequest(_("Choose light, dark or automatic."))
    return response


@require_GET
def help_page(request: HttpRequest, game: str) -> HttpResponse:
    """How a game is played on the site."""
    try:
        adapter = web.adapter_for(game)
    except ValueError:
        raise Http404("No such game.") from None
    context = {"game": game, "game_name": find_game(game).name, **adapter.help_context()}
    return render(request, adapter.help_template, context)


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico where a page names no icon (a new tab, a feed reader)."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


@require_GET
def privacy(request: HttpRequest) -> HttpResponse:
    """What is stored, why and for how long, and the cookies the site sets (each needed)."""
    cookies = {
        "session": settings.SESSION_COOKIE_NAME,
        "csrf": settings.CSRF_COOKIE_NAME,
        "language": settings.LANGUAGE_COOKIE_NAME,
        "theme": THEME_COOKIE,
    }
    return render(request, "games/privacy.html", {"cookies": cookies})
