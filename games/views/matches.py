"""Matches: the lobby, starting a solo game, a bot game or a match, a match's page and the
moves and choices posted from it, and the replay of a finished match."""

import contextlib
import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import replace_url

from games import accounts, services, web
from games.context_processors import owed_matches
from games.forms import MatchForm, PrivacyForm
from games.http import SiteRequest
from games.infra import presence
from games.inputs import parse_choice, parse_int
from games.models import Match, Seat
from games.registry import GAMES, default_game, find_game
from games.services import MatchView, MoveRefused
from games.services.features import chat_rooms, links, newcomers, puzzles, watching
from games.services.match import bot_seats
from games.views import endings, following
from games.views.common import (
    bot_choices,
    guest_limit_page,
    open_seeks,
    posted_data,
    too_many_new_games,
)

PLAY = "games/game.html#play"
POLL_SECONDS = 5


@login_required
@require_GET
def next_game(request: SiteRequest) -> HttpResponse:
    """The most urgent other match where it is the player's move (``?from=`` the match they
    are looking at), else home with a word that none is waiting."""
    seats = services.your_moves(request.user)
    with contextlib.suppress(ValueError):  # else from nowhere in particular
        seats = seats.exclude(match_id=parse_int(request.GET.get("from", ""), minimum=1))
    seat = seats.select_related("match").first()
    if seat is None:
        messages.info(request, _("No other game is waiting for your move."))
        return redirect("home")
    return redirect(seat.match)


@require_GET
def lobby(request: SiteRequest) -> HttpResponse:
    """The open seats, and the matches under way that the visitor may watch."""
    watched = [
        {
            "match": mv.match,
            "seats": mv.seats,
            "standing": web.adapter_for(mv.match.game).standing(mv),
        }
        for mv in watching.watch_list(request.user)
    ]
    context = {"seeks": open_seeks(request.user)[:100], "watched": watched}
    return render(request, "games/lobby.html", context)


@require_http_methods(["GET", "POST"])
def new_solo(request: SiteRequest) -> HttpResponse:
    """A solo game or a game against a bot: at once with the game's default options (a bare
    POST), or as chosen on its form. A visitor plays as a guest."""
    game = _game(request)
    adapter = web.adapter_for(game)
    posted = posted_data(request)
    error = ""
    rules = find_game(game)
    choices = bot_choices(game)
    solo = 1 in rules.players
    # A game with no solo has a bot chosen whatever the address says.
    default_bot = "" if solo or not choices else choices[0][0]
    asked = (posted if posted is not None else request.GET).get("bot")
    try:
        bot = parse_choice(asked, [("", ""), *choices] if solo else choices, default=default_bot)
    except ValueError:
        bot = default_bot
        error = _("There is no %(strength)s bot.") % {"strength": asked}
    limited = False
    if posted is not None and "again" in posted:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        player, wait = accounts.playing(request)
        if player is None:
            return guest_limit_page(request, wait)
        try:
            again = parse_int(posted["again"])
            # A bot's moves are computed by the workers, which every match shares: limited.
            if not accounts.is_guest(request) and bot_seats.in_match(again):
                error = too_many_new_games(request)
                limited = bool(error)
            if not limited:
                return redirect(services.play_again(player, again))
        except ValueError:  # MoveRefused included
            error = _("There is no solo game of yours to play again.")
        posted = None
    plain = ("csrfmiddlewaretoken", "game", "bot", "private")
    chosen = posted is not None and any(k not in plain for k in posted)
    options = adapter.options_form(posted if chosen else None)
    privacy = PrivacyForm(posted)
    private = privacy.is_valid() and privacy.cleaned_data["private"]
    if posted is not None and not error and (not chosen or options.is_valid()):
        cleaned = options.cleaned_data if chosen else {}
        player, wait = accounts.playing(request)
        if player is None:
            error = accounts.too_many_guest_games(wait)
        elif bot and not accounts.is_guest(request):
            # A bot's moves are computed by the workers, which every match shares: limited.
            error = too_many_new_games(request)
        limited = bool(error)
        if not limited:
            try:
                if bot:
                    match = services.start_against_bot(
                        player, bot, game=game, options=cleaned, private=private
                    )
                else:
                    match = services.start_solo(player, game=game, options=cleaned)
                return redirect(match)
            except MoveRefused as exc:
                error = str(exc)
    status = 429 if limited else 400 if (chosen and options.errors) or error else 200
    context = {
        "options": options,
        "privacy": privacy,
        "error": error,
        "game": game,
        "game_name": rules.name,
        "options_help": adapter.options_help,
        "games": [(slug, r.name) for slug, r in GAMES.items()],
        "solo": solo,
        "bots": choices,
        "bot": bot,
        # What the page shows only while a bot is chosen (the pace, the word on bots).
        "with_bot": json.dumps({"bot": [strength for strength, _name in choices]}),
    }
    return render(request, "games/new_solo.html", context, status=status)


def _game(request: SiteRequest) -> str:
    """The game a page for starting games is for: the one its form posts, else the one its
    address names (``?game=``), else the default; 404 if there is no such game."""
    asked = request.POST.get("game") or request.GET.get("game")
    try:
        return parse_choice(asked, GAMES, default=default_game())
    except ValueError:
        raise Http404("No such game.") from None


@accounts.account_required
@require_http_methods(["GET", "POST"])
def new_match(request: SiteRequest) -> HttpResponse:
    """A new match of any game: the match's settings and the chosen game's options."""
    game = _game(request)
    adapter = web.adapter_for(game)
    posted = posted_data(request)
    initial: dict[str, Any] = {"invite": request.GET.get("invite", ""), "game": game}
    chosen: dict[str, Any] = {}
    error = ""
    if posted is None and "again" in request.GET:
        # A new match with the same players and options as one of the player's own.
        try:
            same = services.same_settings(request.user, parse_int(request.GET["again"], minimum=1))
        except ValueError:  # MoveRefused included
            error = _("There is no match of yours with this number.")
        else:
            chosen = same.pop("options")
            if same["game"] == game:
                initial.update(same, open=False)
    form = MatchForm(posted, initial=initial, game=game)
    options = adapter.options_form(posted, initial=chosen)
    context = {"form": form, "options": options, "options_help": adapter.options_help}
    if request.method == "POST" and form.is_valid() and options.is_valid():
        data = form.cleaned_data
        error = too_many_new_games(request)
        if error:
            context = {**context, "error": error}
            return render(request, "games/new_match.html", context, status=429)
        try:
            match = services.create_match(
                request.user,
                game=data["game"],
                players=data["players"],
                time_control=data["time_control"],
                rated=data["rated"],
                options=options.cleaned_data,
                invite=data["invite"],
                open=data["open"],
                link=data["link"],
                private=data["private"],
            )
            return redirect(match)
        except MoveRefused as exc:
            error = str(exc)
    status = 400 if form.errors or options.errors or error else 200
    context = {**context, "error": error}
    return render(request, "games/new_match.html", context, status=status)


def match_view(request: SiteRequest, match_id: int) -> MatchView:
    try:
        return services.view_match(match_id, request.user)
    except Match.DoesNotExist:
        raise Http404("No game of yours has this number.") from None


def _seated(request: SiteRequest, match_id: int) -> None:
    """404 unless the viewer plays in the match: only a player moves or chooses."""
    if not match_view(request, match_id).is_player:
        raise Http404("No game of yours has this number.")


def poll_token(mv: MatchView) -> str:
    """What a polling page asks with: its version, and whether its ratings are still to come
    (they change no version)."""
    token = services.version(mv)
    return f"{token}-rating" if endings.awaits_rating(mv.match) else token


def _page_context(request: SiteRequest, mv: MatchView, *, error: str = "", **query) -> dict:
    match = mv.match
    seat_shown = mv.seat or (mv.seats[0] if mv.seats else None)
    tutorial = web.adapter_for(match.game).tutorial
    context = {
        "match": match,
        "seats": mv.seats,
        "seat": mv.seat,
        "seat_shown": seat_shown,
        "is_player": mv.is_player,
        "error": error,
        "ply": mv.ply,
        # Made only when shown: a preview's partial has no version.
        "version": SimpleLazyObject(lambda: services.version(mv)),
        "poll_token": SimpleLazyObject(lambda: poll_token(mv)),
        "game_name": find_game(match.game).name,
        "described": web.adapter_for(match.game).describe(match.options),
        # The rules at hand: their essentials, the help and the tutorial a link away.
        "essentials_template": web.adapter_for(match.game).essentials_template,
        "tutorial_url": reverse("learn_game", args=[match.game]) if tutorial else "",
        # A first game against a bot offers the tutorial first (asked only by a whole page).
        "learn_first": (lambda: newcomers.offers_tutorial(mv)) if tutorial else False,
        # Made only when shown: the partials of the play area have no chat.
        "chat": SimpleLazyObject(lambda: chat_rooms.messages(match, request.user, seats=mv.seats)),
        **endings.in_tournament(match),
    }
    if mv.view is None:  # waiting for players, or called off
        context["free"] = match.players - len(mv.seats)
        context["polling"] = match.status == Match.Status.WAITING
        token = links.token_for(match, request.user) if context["free"] else None
        if token:
            context["invite_link"] = request.build_absolute_uri(reverse("invitation", args=[token]))
        return following.follow(mv, context)
    adapter = web.adapter_for(match.game)
    if "preview" in query:  # a partial of the turn alone, or a whole page with the turn
        query = {**query, "preview": bool(request.htmx and query["preview"])}
    context.update(adapter.context(mv, **query))
    context["game_template"] = adapter.template
    context.update(following.followed(request, mv))
    if not match.is_solo:
        # Made only when shown: a preview's partial has no log.
        context["log"] = SimpleLazyObject(lambda: adapter.log(mv))
    if mv.is_player and not match.is_solo:
        context["other_moves"] = SimpleLazyObject(
            lambda: any(owed != match.pk for owed in owed_matches(request))
        )
    if match.is_finished:
        context.update(endings.ending(request, mv, seat_shown))
        # A player offered a rematch follows the others' answers (through the page's stream
        # while it has one), every reader the rating changes (no stream tells of them).
        context["polling"] = endings.awaits_answers(context)
        context["awaits_rating"] = endings.awaits_rating(match)
    return following.follow(mv, context)


def _render_game(
    request: SiteRequest,
    mv: MatchView,
    *,
    status: int = 200,
    error: str = "",
    extra: dict | None = None,
    **query,
) -> HttpResponse:
    context = {**_page_context(request, mv, error=error, **query), **(extra or {})}
    if not request.htmx:
        return render(request, "games/game.html", context, status=status)
    if mv.view is None:
        return render(request, PLAY, context, status=status)
    adapter = web.adapter_for(mv.match.game)
    if query.get("preview") or request.htmx.target == "turn":
        # A preview changes only the turn: what is being played, its verdict, the controls
        # (so does a link back to the turn's start, which asks for no preview).
        response = render(request, f"{adapter.template}#turn", context, status=status)
        shown = adapter.preview_url(mv, context)
        return replace_url(response, shown) if shown else response
    response = render(request, PLAY, context, status=status)
    return replace_url(response, mv.match.get_absolute_url())


def game_page(
    request: SiteRequest, match_id: int, *, status: int = 200, extra: dict | None = None, **query
) -> HttpResponse:
    """The match's page (``extra``: more for its template)."""
    return _show(request, match_view(request, match_id), status=status, extra=extra, **query)


def _show(
    request: SiteRequest, mv: MatchView, *, status: int = 200, extra: dict | None = None, **query
) -> HttpResponse:
    """The page (or its partial) of a match the viewer has in front of them."""
    if status == 200 and not query.get("preview"):
        services.seen(mv.match, mv.seat)
    return _render_game(request, mv, status=status, extra=extra, **query)


@require_GET
@never_cache
def game(request: SiteRequest, match_id: int) -> HttpResponse:
    """A match's page, never kept by the browser: Back after a move or a choice made in
    place must show the match as it is, not the page before it. Anybody who may look at the
    match (``visibility.watchable``), a visitor too, gets a spectator's page of a running
    one; a visitor is sent to log in at a match waiting for players."""
    try:
        mv = services.view_match(match_id, request.user)
    except Match.DoesNotExist:
        if not request.user.is_authenticated and Match.objects.filter(pk=match_id).exists():
            return redirect_to_login(request.get_full_path())
        raise Http404("No game of yours has this number.") from None
    if not request.user.is_authenticated and mv.match.status == Match.Status.WAITING:
        return redirect_to_login(request.get_full_path())  # to take a seat, sign in
    if mv.seat is not None and not mv.match.is_solo:
        presence.note(mv.seat.player_id, mv.match.pk)  # no "your move" push while it is open
    if "poll" in request.GET:
        if request.GET["poll"] == poll_token(mv):
            return HttpResponse(status=204)
        return _show(request, mv)
    if mv.view is None:
        return _show(request, mv)
    try:
        query = web.adapter_for(mv.match.game).read_query(request.GET)
    except ValueError as exc:
        return _render_game(request, mv, status=400, error=str(exc))
    return _show(request, mv, **query)


@login_required
@require_POST
def play(request: SiteRequest, match_id: int) -> HttpResponse:
    """A move, posted by one of the game's forms (its adapter reads it)."""
    try:
        adapter = web.adapter_for(services.game_of(match_id))
    except Match.DoesNotExist:
        raise Http404("No game of yours has this number.") from None
    try:
        text, ply = adapter.move(request.POST)
    except ValueError as exc:
        _seated(request, match_id)
        return game_page(request, match_id, status=400, error=str(exc))
    try:
        mv = services.play(match_id, request.user, text, ply)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        error = adapter.refusal(exc)
        return game_page(request, match_id, status=400, error=error)
    if not request.htmx:
        return redirect(mv.match)
    return _render_game(request, mv)


@login_required
@require_POST
def commit(request: SiteRequest, match_id: int) -> HttpResponse:
    """A commitment before a move (``commitment``: what the game's page offers, such as
    "build" in NMBR 9 ++ "2 of 3"), with the ply its page knew; answered as a move is."""
    try:
        made = parse_int(request.POST.get("ply"), minimum=0, maximum=100_000)
    except ValueError as exc:
        _seated(request, match_id)
        return game_page(request, match_id, status=400, error=f"ply: {exc}")
    try:
        mv = services.commit(match_id, request.user, request.POST.get("commitment", ""), made)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        return game_page(request, match_id, status=400, error=str(exc))
    if not request.htmx:
        return redirect(mv.match)
    return _render_game(request, mv)


def _act(request: SiteRequest, match_id: int, action) -> HttpResponse:
    """Run a match action for the requesting player; refusals come back as a 400 page."""
    try:
        action(match_id, request.user)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        return game_page(request, match_id, status=400, error=str(exc))
    return redirect("game", match_id)


@accounts.account_required
@require_POST
def join(request: SiteRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.join)


@login_required
@require_POST
def decline(request: SiteRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.decline)


@login_required
@require_POST
def cancel(request: SiteRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.cancel)


@login_required
@require_POST
def resign(request: SiteRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.resign)


@login_required
@require_POST
def extend(request: SiteRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.extend)


@login_required
@require_POST
def prefs(request: SiteRequest, match_id: int) -> HttpResponse:
    """The player's standing choices for the match (the game's adapter names them)."""
    match = get_object_or_404(Match, pk=match_id)
    names = web.adapter_for(match.game).prefs
    chosen = {name: request.POST.get(name) == "on" for name in names}
    try:
        services.set_prefs(match_id, request.user, **chosen)
    except Seat.DoesNotExist:
        raise Http404("No game of yours has this number.") from None
    return redirect(match)


@require_GET
def replay(request: SiteRequest, match_id: int) -> HttpResponse:
    """Step through a finished match, every player's display side by side."""
    mv = match_view(request, match_id)
    if not mv.match.is_finished:
        raise Http404("This match is not finished.")
    adapter = web.adapter_for(mv.match.game)
    extra = {}
    if mv.match.puzzle is not None:
        extra["par_line"] = puzzles.par_line_for(request.user, mv.match.puzzle)
    context = {"match": mv.match, **adapter.replay(mv, request.GET, **extra)}
    context["chat"] = SimpleLazyObject(
        lambda: chat_rooms.messages(mv.match, request.user, seats=mv.seats)
    )
    # A step asked for by the page's own controls: only the part that changes. htmx bringing
    # back a step its history no longer holds (Back) puts what it gets in place of the whole
    # page, so it gets the whole page.
    htmx = request.htmx
    partial = "#step" if htmx and not htmx.boosted and not htmx.history_restore_request else ""
    response = render(request, adapter.replay_template + partial, context)
    # The step and the page have the same address: the browser must not take one for the
    # other from its cache (Back to a step would show the step alone, without the page).
    patch_vary_headers(response, ("HX-Request",))
    return response
