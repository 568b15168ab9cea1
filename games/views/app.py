"""The site as an app a player installs: its manifest, its service worker (served from the
site's root, so that it looks after every page) and the page the worker shows offline."""

import hashlib

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import Engine
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language, get_language_bidi
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from games.views.common import game_names

#: The site's colours (static/css/site.css): the page's paper behind the app while it
#: starts, the header's ink for the window's title bar.
PAPER = "#f6f3ee"
INK = "#1f2a33"
DAY = 24 * 60 * 60
#: What the offline page is made of: when one changes, so does the worker's cache name.
OFFLINE_TEMPLATES = ("games/offline.html", "base.html")


@require_safe
@cache_control(max_age=DAY)
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the request's language."""
    home = reverse("home")
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "purpose": "any"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "purpose": "any"},
        {"src": static("icons/maskable-512.png"), "sizes": "512x512", "purpose": "maskable"},
    ]
    data = {
        "id": home,
        "name": "nmbr9site",
        "short_name": "nmbr9site",
        "description": _("Play %(games)s online: solo, against bots and with friends.")
        % {"games": game_names()},
        "lang": get_language(),
        "dir": "rtl" if get_language_bidi() else "ltr",
        "start_url": home,
        "scope": home,
        "display": "standalone",
        "background_color": PAPER,
        "theme_color": INK,
        "categories": ["games"],
        "icons": [{**icon, "type": "image/png"} for icon in icons],
    }
    return JsonResponse(data, content_type="application/manifest+json")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker's script. Browsers look for a new one at every visit and take it
    when a byte differs, so it is never served from a cache."""
    context = {
        "cache": f"offline-{offline_version()}",
        "offline": reverse("offline"),
        "home": reverse("home"),
        "icon": static("icons/icon-192.png"),
        "badge": static("icons/badge-96.png"),
    }
    response = HttpResponse(
        render_to_string("sw.js", context), content_type="text/javascript; charset=utf-8"
    )
    response["Cache-Control"] = "no-cache"
    return response


def offline_version() -> str:
    """A short digest of the offline page's templates and the stylesheet it links to, so a
    changed page is fetched anew (the stylesheet's address names its content in production)."""
    engine = Engine.get_default()
    parts = [engine.get_template(name).source for name in OFFLINE_TEMPLATES]
    parts.append(static("css/site.css"))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    """What the service worker shows for a page it could not fetch: in the language asked
    for (``?language=``, the one the player's pages were last shown in), else the request's."""
    asked = request.GET.get("language", "")
    language = asked if asked in dict(settings.LANGUAGES) else get_language()
    with translation.override(language):
        response = render(request, "games/offline.html")
    response["Content-Language"] = language
    return response
