"""What the views of several concerns share: a posted form, the limit on new games, the open
seats, the bots offered, a puzzle's start and the answer to a guest over its limit."""

from django.core.paginator import InvalidPage, Page, Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from games import accounts, web
from games.infra import limits
from games.inputs import parse_int
from games.models import Match, Puzzle
from games.registry import GAMES
from games.services import MoveRefused
from games.services.features import blocks
from games.services.match import bot_seats


def posted_data(request: HttpRequest):
    """The submitted data of a POST (even an empty one), None for a GET."""
    return request.POST if request.method == "POST" else None


def create_form(request: HttpRequest, form_class, template: str, create) -> HttpResponse:
    """A creation form (a match, a challenge): ``?invite=`` fills in the invitees, a valid
    POST returns ``create(cleaned_data)``; invalid input or a refusal shows the form again
    with the errors and a 400, having created nothing."""
    form = form_class(posted_data(request), initial={"invite": request.GET.get("invite", "")})
    error = ""
    if request.method == "POST" and form.is_valid():
        error = too_many_new_games(request)
        if error:
            return render(request, template, {"form": form, "error": error}, status=429)
        try:
            return create(form.cleaned_data)
        except MoveRefused as exc:
            error = str(exc)
    status = 400 if form.errors or error else 200
    return render(request, template, {"form": form, "error": error}, status=status)


def too_many_new_games(request: HttpRequest) -> str:
    """Why the player may not create one more match or challenge now (each may invite others,
    who are notified), or "" if they may; counts this one."""
    wait = limits.over_limit(request, "new-games", "user", limits.NEW_GAMES)
    if not wait:
        return ""
    return _("You have created too many matches and challenges. Try again in %(wait)s minutes.") % {
        "wait": wait
    }


def open_seeks(user):
    """The matches with open seats ``user`` may take: none of their own, none where a seated
    player has blocked them or been blocked by them (``blocks.apart``)."""
    seeks = (
        Match.objects.filter(status=Match.Status.WAITING, open=True)
        .annotate(taken=Count("seats"))
        .select_related("created_by")
        .order_by("-created")
    )
    if user.is_authenticated:
        seeks = seeks.exclude(seats__player=user)
    return blocks.apart(seeks, user)


def bot_choices(game: str) -> list[tuple[str, str]]:
    """Each strength of ``game``'s bots and its name in the page's language, weakest first
    (none if bots do not play it)."""
    return [(strength, bot_name(strength)) for strength in bot_seats.strengths(game)]


def bot_name(strength: str) -> str:
    """The name of the bot of ``strength`` in the page's language."""
    names = {"easy": _("Easy bot"), "medium": _("Medium bot"), "strong": _("Strong bot")}
    return names.get(strength) or _("%(strength)s bot") % {"strength": strength.capitalize()}


def shown_start(puzzle: Puzzle) -> dict[str, str]:
    """What the puzzle shows before play starts, as its game's adapter draws it."""
    return web.puzzle_adapter(puzzle.game).puzzle_start(puzzle)


def guest_limit_page(request: HttpRequest, wait: int) -> HttpResponse:
    """The answer to a guest game over its address's limit."""
    context = {"error": accounts.too_many_guest_games(wait)}
    return render(request, "games/too_many.html", context, status=429)


def asked_page(request: HttpRequest, pages: Paginator, missing: str) -> tuple[Page, str]:
    """The page of ``pages`` that ``?page=`` asks for, and "": a page there is not gives
    the first and ``missing``, the word that says so."""
    try:
        return pages.page(parse_int(request.GET.get("page", "1"), minimum=1)), ""
    except (ValueError, InvalidPage):
        return pages.page(1), missing


def game_names() -> str:
    """The names of the site's games in a sentence ("NMBR 9 and nmbrs!"), in the page's
    language."""
    return get_text_list([rules.name for rules in GAMES.values()], _("and"))
