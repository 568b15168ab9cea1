"""A match's chat and a tournament's (its messages as the reader may read them, writing one,
muting it) and reports to the staff about a message or a player."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from games import accounts
from games.forms import ReportForm
from games.http import SiteRequest
from games.inputs import MAX_ID, parse_int
from games.models import ChatMessage, Match, Tournament
from games.services.features import chat_rooms, reports, tournament_chat
from games.services.match.visibility import Hidden

#: The chat section of a page, and the part of it that a refresh replaces.
SECTION = "games/chat.html"
LOG = "games/chat.html#chat-log"


def _read(request: SiteRequest, match_id: int) -> chat_rooms.Chat:
    try:
        return chat_rooms.read(match_id, request.user)
    except (Match.DoesNotExist, Hidden):
        raise Http404("No game of yours has this number.") from None


def _chat_url(match: Match) -> str:
    return f"{match.get_absolute_url()}#chat"


def _match(the_chat: chat_rooms.Chat) -> Match:
    """The match of a match's chat (a tournament's has none)."""
    if the_chat.match is None:
        raise Http404("No game of yours has this number.")
    return the_chat.match


def _message_url(message: ChatMessage) -> str:
    """Where a message is read: its match's chat, or its tournament's."""
    if message.tournament_id is not None:
        return reverse("tournament", args=[message.tournament_id]) + "#chat"
    if message.match is None:
        raise Http404("No game of yours has this number.")
    return _chat_url(message.match)


@require_http_methods(["GET", "POST"])
@never_cache
def chat(request: SiteRequest, match_id: int) -> HttpResponse:
    """GET: the chat's messages as the reader may read them (the part of the page that a
    refresh replaces; without htmx, the match's page). POST: a message (``text``), answered
    with the whole chat, or, refused, with the chat, the reason and the text sent back."""
    if request.method == "GET":
        the_chat = _read(request, match_id)
        if not the_chat.exists:
            raise Http404("This game has no chat.")
        if not request.user.is_authenticated and not _match(the_chat).is_finished:
            return redirect_to_login(request.get_full_path())  # as the match's page does
        if not request.htmx:
            return redirect(_chat_url(_match(the_chat)))
        return render(request, LOG, {"chat": the_chat, "match": the_chat.match})
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    text = request.POST.get("text", "")
    try:
        chat_rooms.post(match_id, request.user, text)
    except (Match.DoesNotExist, Hidden):
        raise Http404("No game of yours has this number.") from None
    except chat_rooms.ChatRefused as exc:
        # htmx puts a 400 in place (the page's htmx-config), not a 429.
        too_fast = isinstance(exc, chat_rooms.TooFast) and not request.htmx
        return _section(
            request, match_id, status=429 if too_fast else 400, error=str(exc), chat_text=text
        )
    if not request.htmx:
        return redirect(_chat_url(_match(_read(request, match_id))))
    return _section(request, match_id, chat_posted=True)


def _section(
    request: SiteRequest, match_id: int, *, status: int = 200, error: str = "", **extra
) -> HttpResponse:
    """The whole chat section (htmx), or a page of its own with it (a form sent without
    JavaScript that must be shown again)."""
    the_chat = _read(request, match_id)
    context = {"chat": the_chat, "match": the_chat.match, "chat_error": error, **extra}
    if request.htmx:
        return render(request, SECTION, context, status=status)
    return render(request, "games/chat_page.html", context, status=status)


@login_required
@require_POST
def mute(request: SiteRequest, match_id: int) -> HttpResponse:
    """Mute the match's chat for the player (``muted=on``), or show it again."""
    try:
        chat_rooms.mute(match_id, request.user, request.POST.get("muted") == "on")
    except (Match.DoesNotExist, Hidden, chat_rooms.ChatRefused):
        raise Http404("No chat of yours has this number.") from None
    if request.htmx:
        return _section(request, match_id)
    return redirect(_chat_url(_match(_read(request, match_id))))


@accounts.account_required
@require_http_methods(["GET", "POST"])
def report(request: SiteRequest) -> HttpResponse:
    """Report a message (``?message=`` its number, one the player may read) or a player
    (``?player=`` their name) to the staff: a reason and a note; "thank you" and back to
    the match or the profile."""
    asked = request.POST if request.method == "POST" else request.GET
    message = None
    if "message" in asked:
        try:
            number = parse_int(asked["message"], minimum=1, maximum=MAX_ID)
            message = reports.reportable(number, request.user)
        except (ValueError, ChatMessage.DoesNotExist):
            raise Http404("No message you can read has this number.") from None
        reported, back = message.author, _message_url(message)
    else:
        reported = get_object_or_404(User, username=asked.get("player", ""))
        back = reverse("profile", args=[reported.username])
    if reported.pk == request.user.pk:
        raise Http404("You cannot report yourself.")
    form = ReportForm(request.POST if request.method == "POST" else None)
    error = ""
    status = 200
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        try:
            reports.report(request.user, reported, data["reason"], data["text"], message)
        except reports.ReportRefused as exc:
            error = str(exc)
            status = 429 if isinstance(exc, reports.TooMany) else 400
        else:
            messages.success(request, _("Thank you: the staff will look into it."))
            return redirect(back)
    elif form.is_bound:
        status = 400
    context = {"form": form, "error": error, "reported": reported, "message": message}
    context["back"] = back
    return render(request, "games/report.html", context, status=status)


# ------------------------------------------------------------------ a tournament's chat


def _key(request: SiteRequest) -> str:
    return request.POST.get("key", "") or request.GET.get("key", "")


def _tournament_chat(request: SiteRequest, tournament_id: int) -> chat_rooms.Chat:
    try:
        return tournament_chat.read(tournament_id, request.user, _key(request))
    except Tournament.DoesNotExist:
        raise Http404("No tournament has this number.") from None


def _tournament_page(chat: chat_rooms.Chat) -> str:
    assert chat.tournament is not None
    url = chat.tournament.get_absolute_url()
    return f"{url}?key={chat.key}#chat" if chat.key else f"{url}#chat"


@require_http_methods(["GET", "POST"])
@never_cache
def tournament_chat_view(request: SiteRequest, tournament_id: int) -> HttpResponse:
    """A tournament's chat, as ``chat`` is a match's: GET its messages (htmx), POST one."""
    if request.method == "GET":
        the_chat = _tournament_chat(request, tournament_id)
        if not request.htmx:
            return redirect(_tournament_page(the_chat))
        return render(request, LOG, {"chat": the_chat})
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    text = request.POST.get("text", "")
    try:
        tournament_chat.post(tournament_id, request.user, text, _key(request))
    except Tournament.DoesNotExist:
        raise Http404("No tournament has this number.") from None
    except chat_rooms.ChatRefused as exc:
        too_fast = isinstance(exc, chat_rooms.TooFast) and not request.htmx
        the_chat = _tournament_chat(request, tournament_id)
        context = {"chat": the_chat, "chat_error": str(exc), "chat_text": text}
        context["match"] = the_chat.tournament  # a page of its own names what it is of
        status = 429 if too_fast else 400
        template = SECTION if request.htmx else "games/chat_page.html"
        return render(request, template, context, status=status)
    the_chat = _tournament_chat(request, tournament_id)
    if not request.htmx:
        return redirect(_tournament_page(the_chat))
    return render(request, SECTION, {"chat": the_chat, "chat_posted": True})


@login_required
@require_POST
def tournament_chat_mute(request: SiteRequest, tournament_id: int) -> HttpResponse:
    """Mute the tournament's chat for the player (``muted=on``), or show it again."""
    try:
        tournament_chat.mute(
            tournament_id, request.user, request.POST.get("muted") == "on", _key(request)
        )
    except Tournament.DoesNotExist:
        raise Http404("No tournament has this number.") from None
    the_chat = _tournament_chat(request, tournament_id)
    if request.htmx:
        return render(request, SECTION, {"chat": the_chat})
    return redirect(_tournament_page(the_chat))
