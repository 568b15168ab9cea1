from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games import accounts
from games.http import SiteRequest
from games.models import Notification
from games.services import owed_match_ids
from games.web import ADAPTERS


def unread(request: HttpRequest) -> dict:
    """The number of unread notifications, counted only by pages that show it."""
    if not request.user.is_authenticated:
        return {}
    user = request.user
    return {
        "unread": SimpleLazyObject(
            lambda: Notification.objects.filter(player=user, read=False).count()
        )
    }


def owed_matches(request: SiteRequest) -> list[int]:
    """The matches waiting for the viewer's move, most urgent first: one query per request,
    whoever asks (the tab title, the game page's "next game")."""
    if not hasattr(request, "owed_matches"):
        user = request.user
        request.owed_matches = owed_match_ids(user) if user.is_authenticated else []
    return request.owed_matches


def moves(request: SiteRequest) -> dict:
    """The matches waiting for the player's move (the tab title counts them), read only by
    pages that show them."""
    if not request.user.is_authenticated:
        return {}
    return {"owed": SimpleLazyObject(lambda: owed_matches(request))}


def guest(request: HttpRequest) -> dict:
    """Whether the viewer plays as a guest (the header offers to keep their games)."""
    return {"is_guest": accounts.is_guest(request)}


#: The themes a reader may choose in the footer (kept in a cookie); without one, pages
#: follow the system's light or dark (prefers-color-scheme).
THEME_COOKIE = "theme"
THEMES = ("light", "dark")


def theme(request: HttpRequest) -> dict:
    """The theme the reader chose, if any: ``html[data-theme]`` sets it over the system's."""
    chosen = request.COOKIES.get(THEME_COOKIE)
    return {"theme": chosen if chosen in THEMES else ""}


def game_assets(request: HttpRequest) -> dict:
    """Every hosted game's own stylesheets and scripts (static paths), for every page: any
    page may show any game (the home page's pictures, the lists' glances)."""
    return {
        "game_styles": [path for adapter in ADAPTERS.values() for path in adapter.stylesheets],
        "game_scripts": [path for adapter in ADAPTERS.values() for path in adapter.scripts],
    }
