"""Typed function views: parse the request, call a service, render. Nothing here knows a
game's rules: each game's web adapter (``games.web``) draws its view and reads its forms."""

import contextlib
import hashlib
import json
from functools import lru_cache

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm, PasswordResetForm
from django.contrib.auth.models import User
from django.contrib.auth.views import LoginView, PasswordChangeView, redirect_to_login
from django.core.paginator import InvalidPage, Paginator
from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.functional import SimpleLazyObject
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)
from django.views.i18n import set_language
from django_htmx.http import replace_url

from games import accounts, limits, ratings, services, web
from games import notifications as mails
from games.context_processors import owed_matches
from games.forms import ChallengeForm, MatchForm, SignupForm
from games.inputs import parse_choice, parse_int
from games.middleware import SESSION_LANGUAGE
from games.models import (
    ChallengeOffer,
    DailyResult,
    Match,
    Notification,
    PlayerStats,
    Profile,
    Puzzle,
    Rating,
    RatingChange,
    Seat,
)
from games.registry import DEFAULT_GAME, GAMES, PUZZLE_GAME, find_game
from games.services import (
    MatchView,
    MoveRefused,
    addresses,
    boards,
    bots,
    dashboard,
    finish,
    puzzles,
)
from games.views import accounts as account_views
from games.web.charts import rating_chart_svg

PLAY = "games/game.html#play"
POLL_SECONDS = 5


# ------------------------------------------------------------------ home, accounts


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """A visitor's front page: both games, ready to play at once, and the daily puzzle; a
    player's dashboard: their matches (their move first), invitations, the daily puzzle,
    ratings, open seats and last results."""
    context: dict = {"games": _game_cards()}
    if not request.user.is_authenticated:
        daily, players = dashboard.front_page()
        context.update(daily=daily, daily_players=players, start=daily and _start(daily))
        return render(request, "games/home.html", context)
    board = dashboard.dashboard(request.user, _open_seeks(request.user))
    for entry in board.your_move + board.waiting:
        if entry.view is not None:
            entry.picture = web.adapter_for(entry.seat.match.game).glance(entry.view)
    context.update(board=board, start=board.daily and _start(board.daily))
    if request.htmx and request.GET.get("part") == "matches":
        return render(request, "games/home.html#matches", context)
    return render(request, "games/home.html", context)


def _game_cards() -> list[dict]:
    """Each game as the home page offers it: a picture, a line, and how to start it."""
    return _game_cards_in(translation.get_language())


@lru_cache(maxsize=8)
def _game_cards_in(language: str) -> list[dict]:
    """``_game_cards`` in ``language`` (the active one): made once per language."""
    offered = []
    for slug, rules in GAMES.items():
        adapter = web.adapter_for(slug)
        offered.append(
            {
                "slug": slug,
                "name": rules.name,
                "tagline": adapter.tagline,
                "picture": adapter.picture(),
                "solo": 1 in rules.players,
                "bots": _bot_choices() if bots.plays(slug) else [],
            }
        )
    return offered


@login_required
@require_GET
def next_game(request: HttpRequest) -> HttpResponse:
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


def _posted(request: HttpRequest):
    """The submitted data of a POST (even an empty one), None for a GET."""
    return request.POST if request.method == "POST" else None


def _create_form(request: HttpRequest, form_class, template: str, create) -> HttpResponse:
    """A creation form (a match, a challenge): ``?invite=`` fills in the invitees, a valid
    POST returns ``create(cleaned_data)``; invalid input or a refusal shows the form again
    with the errors and a 400, having created nothing."""
    form = form_class(_posted(request), initial={"invite": request.GET.get("invite", "")})
    error = ""
    if request.method == "POST" and form.is_valid():
        error = _too_many_new_games(request)
        if error:
            return render(request, template, {"form": form, "error": error}, status=429)
        try:
            return create(form.cleaned_data)
        except MoveRefused as exc:
            error = str(exc)
    status = 400 if form.errors or error else 200
    return render(request, template, {"form": form, "error": error}, status=status)


def _too_many_new_games(request: HttpRequest) -> str:
    """Why the player may not create one more match or challenge now (each may invite others,
    who are notified), or "" if they may; counts this one."""
    wait = limits.over_limit(request, "new-games", "user", limits.NEW_GAMES)
    if not wait:
        return ""
    return _("You have created too many matches and challenges. Try again in %(wait)s minutes.") % {
        "wait": wait
    }


def _open_seeks(user):
    seeks = (
        Match.objects.filter(status=Match.Status.WAITING, open=True)
        .annotate(taken=Count("seats"))
        .select_related("created_by")
        .order_by("-created")
    )
    if user.is_authenticated:
        seeks = seeks.exclude(seats__player=user)
    return seeks


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/lobby.html", {"seeks": _open_seeks(request.user)[:100]})


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account; a guest's games become its own. Then the address the player came from
    (``next``), or the tutorials."""
    if request.user.is_authenticated and not accounts.is_guest(request):
        return redirect("home")
    form = SignupForm(_posted(request))
    after = _next(request) or reverse("learn")
    if request.method == "POST" and form.is_valid():
        # Only sign-ups that are taken count against the limit: a form sent back with its
        # mistakes costs nothing.
        wait = limits.over_limit(request, "signup", "ip", limits.SIGNUPS)
        if wait:
            error = _("Too many sign-ups from your address. Try again in %(wait)s minutes.") % {
                "wait": wait
            }
            # The name and address stay in the form, for when the hour is over.
            context = {"form": form, "error": error, "next": _next(request)}
            return render(request, "registration/signup.html", context, status=429)
        email = form.cleaned_data["email"]
        try:
            with transaction.atomic():
                user = form.save()
                addresses.ask(user, email)
        except IntegrityError:
            # Another sign-up took the name after the form's checks.
            form.add_error(None, _("That name was taken just now."))
        else:
            accounts.log_in(request, user)
            account_views.send_address_mail(request, user)
            account_views.link_sent(request, email)
            return redirect(after)
    status = 400 if form.errors else 200
    context = {"form": form, "next": _next(request)}
    return render(request, "registration/signup.html", context, status=status)


def _next(request: HttpRequest) -> str:
    """The address of this site a form was asked to lead to afterwards (``next``), or ""."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if safe else ""


@sensitive_post_parameters()
@require_http_methods(["GET", "POST"])
def log_in(request: HttpRequest) -> HttpResponse:
    """Django's log-in; a guest's games become the account's."""
    guest_id = request.session.get(accounts.SESSION_GUEST) if accounts.is_guest(request) else None
    response = LoginView.as_view(extra_context={"is_guest": guest_id is not None})(request)
    if request.method == "POST" and response.status_code == 302:
        accounts.adopt_session_guest(request, guest_id)
    elif request.method == "POST" and limits.login_wait(request):
        return limits.locked_out(request)  # locked before, or by this failure
    return response


@sensitive_post_parameters()
@accounts.account_required
@require_http_methods(["GET", "POST"])
def password_change(request: HttpRequest) -> HttpResponse:
    """Django's change of password, with its attempts limited per player: a session left open
    somewhere must not be a way to guess the password."""
    if request.method == "POST":
        wait = limits.over_limit(request, "password-change", "user", limits.PASSWORD_CHANGES)
        if wait:
            error = _("Too many attempts to change your password. Try again in %(wait)s minutes.")
            context = {"form": PasswordChangeForm(request.user), "error": error % {"wait": wait}}
            return render(request, "registration/password_change_form.html", context, status=429)
    return PasswordChangeView.as_view()(request)


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """Ask for a password-reset link. The e-mail is sent by a task, so the answer takes as
    long whether or not the address belongs to an account."""
    form = PasswordResetForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"].strip().lower()
        wait = limits.over_limit(
            request, "reset-client", "ip", limits.RESETS_PER_CLIENT
        ) or limits.over_limit(
            request, "reset-address", lambda group, request: email, limits.RESETS_PER_ADDRESS
        )
        if wait:
            error = _("Too many reset e-mails asked for. Try again in %(wait)s minutes.") % {
                "wait": wait
            }
            context = {"form": form, "error": error}
            return render(request, "registration/password_reset_form.html", context, status=429)
        mails.send_soon("send_password_reset", email, translation.get_language())
        return redirect("password_reset_done")
    status = 400 if form.errors else 200
    return render(request, "registration/password_reset_form.html", {"form": form}, status=status)


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


#: News on a page of the notifications.
NEWS_PER_PAGE = 30


@login_required
@require_http_methods(["GET", "POST"])
def notifications(request: HttpRequest) -> HttpResponse:
    """The player's "your move" notifications (one per match where the move is theirs) above
    their news (results, invitations, challenges), newest first and NEWS_PER_PAGE a page
    (``?page=``; a page there is not is answered with a word, a 400 and the first)."""
    mine = Notification.objects.filter(player=request.user)
    if request.method == "POST":
        mine.filter(read=False).update(read=True)
        return redirect("notifications")
    news = Paginator(
        mine.filter(kind=Notification.Kind.INFO).select_related("match"), NEWS_PER_PAGE
    )
    error = ""
    try:
        page = news.page(parse_int(request.GET.get("page", "1"), minimum=1))
    except (ValueError, InvalidPage):
        error = _("There is no such page of news: here is the first.")
        page = news.page(1)
    moves = mine.filter(kind=Notification.Kind.MOVE).select_related("match")
    context = {"moves": list(moves) if page.number == 1 else [], "page": page, "error": error}
    return render(request, "games/notifications.html", context, status=400 if error else 200)


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    stats = PlayerStats.objects.filter(player=player).first()
    held = {(r.game, r.pool): r for r in Rating.objects.filter(player=player)}
    rating = held.get((DEFAULT_GAME, Rating.Pool.MATCH))
    puzzle_rating = held.get((PUZZLE_GAME, Rating.Pool.PUZZLE))
    solving = held.get((PUZZLE_GAME, Rating.Pool.SOLVING))
    others = [
        (find_game(game).name, r, ratings.is_provisional(r.games))
        for (game, pool), r in sorted(held.items())
        if r not in (rating, puzzle_rating, solving)
    ]
    changes = list(
        RatingChange.objects.filter(
            player=player, game=DEFAULT_GAME, pool=Rating.Pool.MATCH
        ).order_by("id")
    )
    finished = Seat.objects.filter(player=player, match__status=Match.Status.FINISHED)
    matches = finished.filter(match__kind=Match.Kind.MATCH)
    match_figures = matches.aggregate(
        games=Count("id"), wins=Count("id", filter=Q(rank=1)), average=Avg("score")
    )
    recent = finished.select_related("match").order_by("-match__finished")[:20]
    current = (
        Seat.objects.filter(player=player, match__status=Match.Status.ACTIVE)
        .exclude(state__in=[Seat.State.RESIGNED, Seat.State.DROPPED])
        .select_related("match")
        .order_by("-match__started")[:20]
    )
    strength = bots.strength_of(player)
    context = {
        "player": player,
        "stats": stats,
        "rating": rating,
        "provisional": rating is not None and ratings.is_provisional(rating.games),
        "puzzle_rating": puzzle_rating,
        "puzzle_provisional": puzzle_rating is not None
        and ratings.is_provisional(puzzle_rating.games),
        "solving": solving,
        "solving_provisional": solving is None or ratings.is_provisional(solving.games),
        "best_solo": services.best_solo_game(player),
        "other_ratings": others,
        "streak": puzzles.streak(player),
        "match_figures": match_figures,
        "chart": rating_chart_svg(
            [c.after for c in changes], start=ratings.START, dates=[c.created for c in changes]
        ),
        "recent": recent,
        "current": current,
        "bot": dict(_bot_choices()).get(strength, ""),
        "bot_strength": strength,
    }
    return render(request, "games/profile.html", context)


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    """One leaderboard: a rating list (``?game=``, ``?pool=``), the daily streaks
    (``?board=streaks``) or a game's best solo scores (``?board=solo&game=``)."""
    board = boards.find(
        request.GET.get("board", ""),
        request.GET.get("game", DEFAULT_GAME),
        request.GET.get("pool", Rating.Pool.MATCH),
    )
    if board is None:
        raise Http404("No such leaderboard.")
    shown = boards.rows(board)
    context = {
        "board": board,
        "rows": shown,
        "boards": boards.boards(),
        "absent": boards.why_absent(board, request.user, shown),
        "active_days": boards.ACTIVE_DAYS,
        "needed": ratings.PROVISIONAL_GAMES,
    }
    return render(request, "games/leaderboard.html", context)


# ------------------------------------------------------------------ starting games


@require_http_methods(["GET", "POST"])
def new_solo(request: HttpRequest) -> HttpResponse:
    """A solo game or a game against a bot: at once with the game's default options (a bare
    POST), or as chosen on its form. A visitor plays as a guest."""
    game = _game(request)
    adapter = web.adapter_for(game)
    posted = _posted(request)
    error = ""
    rules = find_game(game)
    choices = _bot_choices() if bots.plays(game) else []
    solo = 1 in rules.players
    # A game with no solo has a bot chosen whatever the address says.
    default_bot = "" if solo or not choices else choices[0][0]
    asked = (posted if posted is not None else request.GET).get("bot")
    try:
        bot = parse_choice(asked, [("", ""), *choices] if solo else choices, default=default_bot)
    except ValueError:
        bot = default_bot
        error = _("There is no %(strength)s bot.") % {"strength": asked}
    if posted is not None and "again" in posted:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        player, wait = accounts.playing(request)
        if player is None:
            return _too_many(request, wait)
        try:
            return redirect(services.play_again(player, parse_int(posted["again"])))
        except ValueError:  # MoveRefused included
            error = _("There is no solo game of yours to play again.")
            posted = None
    plain = ("csrfmiddlewaretoken", "game", "bot")
    chosen = posted is not None and any(k not in plain for k in posted)
    options = adapter.options_form(posted if chosen else None)
    limited = False
    if posted is not None and not error and (not chosen or options.is_valid()):
        cleaned = options.cleaned_data if chosen else {}
        player, wait = accounts.playing(request)
        if player is None:
            error = accounts.too_many_guest_games(wait)
        elif bot and not accounts.is_guest(request):
            # A bot's moves are computed by the workers, which every match shares: limited.
            error = _too_many_new_games(request)
        limited = bool(error)
        if not limited:
            try:
                if bot:
                    match = services.start_against_bot(player, bot, game=game, options=cleaned)
                else:
                    match = services.start_solo(player, game=game, options=cleaned)
                return redirect(match)
            except MoveRefused as exc:
                error = str(exc)
    status = 429 if limited else 400 if (chosen and options.errors) or error else 200
    context = {
        "options": options,
        "error": error,
        "game": game,
        "game_name": rules.name,
        "games": [(slug, r.name) for slug, r in GAMES.items()],
        "solo": solo,
        "bots": choices,
        "bot": bot,
        # What the page shows only while a bot is chosen (the pace, the word on bots).
        "with_bot": json.dumps({"bot": [strength for strength, _name in choices]}),
    }
    return render(request, "games/new_solo.html", context, status=status)


def _game(request: HttpRequest) -> str:
    """The game a page for starting games is for: the one its form posts, else the one its
    address names (``?game=``), else the default; 404 if there is no such game."""
    asked = request.POST.get("game") or request.GET.get("game")
    try:
        return parse_choice(asked, GAMES, default=DEFAULT_GAME)
    except ValueError:
        raise Http404("No such game.") from None


def _bot_choices() -> list[tuple[str, str]]:
    """Each bot's strength and its name in the page's language, weakest first."""
    names = {"easy": _("Easy bot"), "medium": _("Medium bot"), "strong": _("Strong bot")}
    return [(strength, names[strength]) for strength in bots.STRENGTHS]


@require_GET
def help_page(request: HttpRequest, game: str) -> HttpResponse:
    """How a game is played on the site."""
    try:
        adapter = web.adapter_for(game)
    except ValueError:
        raise Http404("No such game.") from None
    context = {"game": game, "game_name": find_game(game).name, **adapter.help_context()}
    return render(request, adapter.help_template, context)


@accounts.account_required
@require_http_methods(["GET", "POST"])
def new_match(request: HttpRequest) -> HttpResponse:
    """A new match of any game: the match's settings and the chosen game's options."""
    game = _game(request)
    adapter = web.adapter_for(game)
    posted = _posted(request)
    initial = {"invite": request.GET.get("invite", ""), "game": game}
    form = MatchForm(posted, initial=initial, game=game)
    options = adapter.options_form(posted)
    error = ""
    if request.method == "POST" and form.is_valid() and options.is_valid():
        data = form.cleaned_data
        error = _too_many_new_games(request)
        if error:
            context = {"form": form, "options": options, "error": error}
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
            )
            return redirect(match)
        except MoveRefused as exc:
            error = str(exc)
    status = 400 if form.errors or options.errors or error else 200
    context = {"form": form, "options": options, "error": error}
    return render(request, "games/new_match.html", context, status=status)


# ------------------------------------------------------------------ the game page


def _match_view(request: HttpRequest, match_id: int) -> MatchView:
    try:
        return services.view_match(match_id, request.user)
    except Match.DoesNotExist:
        raise Http404("No game of yours has this number.") from None


def _version(mv: MatchView) -> str:
    """Changes whenever anything the viewer may see changes, and tells nothing more: it is
    made of the viewer's own view and what every page shows of the seats."""
    seen = [(s.state, s.total_strikes) for s in mv.seats]
    game = mv.view.to_dict() if mv.view is not None else None
    text = json.dumps([mv.match.status, seen, game, mv.commitment], sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"{mv.match.status}-{digest[:16]}"


def _page_context(request: HttpRequest, mv: MatchView, *, error: str = "", **query) -> dict:
    match = mv.match
    seat_shown = mv.seat or (mv.seats[0] if mv.seats else None)
    context = {
        "match": match,
        "seats": mv.seats,
        "seat": mv.seat,
        "seat_shown": seat_shown,
        "is_player": mv.is_player,
        "error": error,
        "ply": mv.ply,
        # Made only when shown: a preview's partial has no version.
        "version": SimpleLazyObject(lambda: _version(mv)),
        "game_name": find_game(match.game).name,
        "described": web.adapter_for(match.game).describe(match.options),
    }
    if mv.view is None:  # waiting for players, or called off
        context["free"] = match.players - len(mv.seats)
        context["polling"] = match.status == Match.Status.WAITING
        return context
    adapter = web.adapter_for(match.game)
    if "preview" in query:  # a partial of the turn alone, or a whole page with the turn
        query = {**query, "preview": bool(request.htmx and query["preview"])}
    context.update(adapter.context(mv, **query))
    context["game_template"] = adapter.template
    context["polling"] = match.status == Match.Status.ACTIVE and (
        mv.is_player and not match.is_solo and mv.seat.deadline is None
    )
    if not match.is_solo:
        # Made only when shown: a preview's partial has no log.
        context["log"] = SimpleLazyObject(lambda: adapter.log(mv))
    if mv.is_player and not match.is_solo:
        context["other_moves"] = SimpleLazyObject(
            lambda: any(owed != match.pk for owed in owed_matches(request))
        )
    if match.is_finished:
        if match.puzzle_id:
            shown = puzzles.has_finished(request.user, match.puzzle)
            context["par"] = match.puzzle.par if shown else None
            if match.daily:
                context["counted"] = puzzles.counted_for_its_day(match)
                # A guest's attempt counts once they have an account (if none of its counts).
                context["counts_on_sign_up"] = (
                    accounts.is_guest(request) and mv.is_player and finish.on_its_day(match)
                )
        if match.kind == Match.Kind.SOLO and seat_shown is not None:
            best = services.personal_best(seat_shown.player)
            context["best"] = best
            context["new_best"] = best is not None and seat_shown.score >= best
        if match.rated:
            context["rating_changes"] = {
                c.player_id: c for c in RatingChange.objects.filter(match=match)
            }
    return context


def _render_game(
    request: HttpRequest, mv: MatchView, *, status: int = 200, error: str = "", **query
) -> HttpResponse:
    context = _page_context(request, mv, error=error, **query)
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


def _game_page(request: HttpRequest, match_id: int, *, status: int = 200, **query) -> HttpResponse:
    return _show(request, _match_view(request, match_id), status=status, **query)


def _show(request: HttpRequest, mv: MatchView, *, status: int = 200, **query) -> HttpResponse:
    """The page (or its partial) of a match the viewer has in front of them."""
    if status == 200 and not query.get("preview"):
        services.seen(mv.match, mv.seat)
    return _render_game(request, mv, status=status, **query)


@require_GET
@never_cache
def game(request: HttpRequest, match_id: int) -> HttpResponse:
    """A match's page, never kept by the browser: Back after a move or a choice made in
    place must show the match as it is, not the page before it."""
    try:
        mv = services.view_match(match_id, request.user)
    except Match.DoesNotExist:
        if not request.user.is_authenticated and Match.objects.filter(pk=match_id).exists():
            return redirect_to_login(request.get_full_path())
        raise Http404("No game of yours has this number.") from None
    if not request.user.is_authenticated and not mv.match.is_finished:
        return redirect_to_login(request.get_full_path())
    if "poll" in request.GET:
        if request.GET["poll"] == _version(mv):
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
def play(request: HttpRequest, match_id: int) -> HttpResponse:
    """A move, posted by one of the game's forms (its adapter reads it)."""
    try:
        adapter = web.adapter_for(services.game_of(match_id))
    except Match.DoesNotExist:
        raise Http404("No game of yours has this number.") from None
    try:
        text, ply = adapter.move(request.POST)
    except ValueError as exc:
        _match_view(request, match_id)
        return _game_page(request, match_id, status=400, error=str(exc))
    try:
        mv = services.play(match_id, request.user, text, ply)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        error = adapter.refusal(exc)
        return _game_page(request, match_id, status=400, error=error)
    if not request.htmx:
        return redirect(mv.match)
    return _render_game(request, mv)


@login_required
@require_POST
def commit(request: HttpRequest, match_id: int) -> HttpResponse:
    """A commitment before a move (``commitment``: what the game's page offers, such as
    "build" in NMBR 9 ++ "2 of 3"), with the ply its page knew; answered as a move is."""
    try:
        made = parse_int(request.POST.get("ply"), minimum=0, maximum=100_000)
    except ValueError as exc:
        _match_view(request, match_id)
        return _game_page(request, match_id, status=400, error=f"ply: {exc}")
    try:
        mv = services.commit(match_id, request.user, request.POST.get("commitment", ""), made)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        return _game_page(request, match_id, status=400, error=str(exc))
    if not request.htmx:
        return redirect(mv.match)
    return _render_game(request, mv)


def _act(request: HttpRequest, match_id: int, action) -> HttpResponse:
    """Run a match action for the requesting player; refusals come back as a 400 page."""
    try:
        action(match_id, request.user)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        return _game_page(request, match_id, status=400, error=str(exc))
    return redirect("game", match_id)


@accounts.account_required
@require_POST
def join(request: HttpRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.join)


@login_required
@require_POST
def decline(request: HttpRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.decline)


@login_required
@require_POST
def cancel(request: HttpRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.cancel)


@login_required
@require_POST
def resign(request: HttpRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.resign)


@login_required
@require_POST
def extend(request: HttpRequest, match_id: int) -> HttpResponse:
    return _act(request, match_id, services.extend)


@login_required
@require_POST
def prefs(request: HttpRequest, match_id: int) -> HttpResponse:
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
def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """Step through a finished match, every player's display side by side."""
    mv = _match_view(request, match_id)
    if not mv.match.is_finished:
        raise Http404("This match is not finished.")
    adapter = web.adapter_for(mv.match.game)
    extra = {}
    if mv.match.puzzle_id:
        extra["par_line"] = puzzles.par_line_for(request.user, mv.match.puzzle)
    context = {"match": mv.match, **adapter.replay(mv, request.GET, **extra)}
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


# ------------------------------------------------------------------ puzzles


def _start(puzzle: Puzzle) -> dict:
    """What the puzzle shows before play starts, as its game's adapter draws it."""
    return web.adapter_for(PUZZLE_GAME).puzzle_start(puzzle)


@require_GET
def puzzle_page(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    if puzzle.daily_on is not None and puzzle.daily_on > puzzles.today():
        raise Http404("This puzzle is not published yet.")
    context = {
        "puzzle": puzzle,
        "start": _start(puzzle),
        "show_par": puzzles.has_finished(request.user, puzzle),
    }
    return render(request, "games/puzzle.html", context)


@require_POST
def play_puzzle(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    player, wait = accounts.playing(request)
    if player is None:
        return _too_many(request, wait)
    return redirect(puzzles.start_puzzle(player, puzzle))


@require_GET
def daily(request: HttpRequest) -> HttpResponse:
    puzzle = puzzles.publish_daily()
    day = puzzle.daily_on
    results = list(DailyResult.objects.filter(day=day).select_related("player")[:100])
    context = {
        "puzzle": puzzle,
        "day": day,
        "start": _start(puzzle),
        "results": results,
        "show_par": puzzles.has_finished(request.user, puzzle),
    }
    if request.user.is_authenticated:
        context["counted"] = next((r for r in results if r.player_id == request.user.pk), None)
        context["in_progress"] = puzzles.daily_attempt(request.user, puzzle)
        context["streak"] = puzzles.streak(request.user)
    return render(request, "games/daily.html", context)


@require_POST
def play_daily(request: HttpRequest) -> HttpResponse:
    player, wait = accounts.playing(request)
    if player is None:
        return _too_many(request, wait)
    return redirect(puzzles.play_daily(player))


def _too_many(request: HttpRequest, wait: int) -> HttpResponse:
    """The answer to a guest game over its address's limit."""
    context = {"error": accounts.too_many_guest_games(wait)}
    return render(request, "games/too_many.html", context, status=429)


@require_GET
def daily_archive(request: HttpRequest) -> HttpResponse:
    days = list(
        Puzzle.objects.filter(daily_on__lt=puzzles.today())
        .order_by("-daily_on")
        .annotate(players=Count("results"))[:60]
    )
    winners = puzzles.daily_winners(days)
    rows = [(p, winners.get(p.pk)) for p in days]
    return render(request, "games/daily_archive.html", {"rows": rows})


@accounts.account_required
@require_http_methods(["GET", "POST"])
def new_challenge(request: HttpRequest) -> HttpResponse:
    def create(data):
        offer = puzzles.offer_challenge(
            request.user,
            invite=data["invite"],
            players=data["players"],
            open=data["open"],
            rated=data["rated"],
            time_control=data["time_control"],
        )
        return redirect("challenge_offer", offer.pk)

    return _create_form(request, ChallengeForm, "games/new_challenge.html", create)


@accounts.account_required
@require_http_methods(["GET", "POST"])
def challenge_offer(request: HttpRequest, offer_id: int) -> HttpResponse:
    offer = get_object_or_404(
        ChallengeOffer.objects.select_related("first", "second"),
        pk=offer_id,
        challenger=request.user,
    )
    error = ""
    if request.method == "POST":
        try:
            puzzle_id = parse_int(request.POST.get("puzzle", ""), minimum=1)
            return redirect(puzzles.pick_challenge(offer.pk, request.user, puzzle_id))
        except ValueError as exc:
            error = str(exc) if isinstance(exc, MoveRefused) else _("Pick one of the two puzzles.")
    if offer.match_id is not None and not error:
        return redirect(offer.match)
    choices = [(p, _start(p)) for p in offer.puzzles]
    context = {"offer": offer, "choices": choices, "error": error}
    return render(request, "games/challenge_offer.html", context, status=400 if error else 200)


@accounts.account_required
@require_POST
def rematch(request: HttpRequest, match_id: int) -> HttpResponse:
    error = _too_many_new_games(request)
    if error:
        return _game_page(request, match_id, status=429, error=error)
    try:
        offer = puzzles.rematch(match_id, request.user)
    except MoveRefused as exc:
        return _game_page(request, match_id, status=400, error=str(exc))
    return redirect("challenge_offer", offer.pk)


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico where a page names no icon (a new tab, a feed reader)."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
