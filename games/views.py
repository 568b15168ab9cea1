import hashlib
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.db.models import Avg, Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import replace_url

from games import limits, puzzles, queue, ratings, services
from games import notifications as mails
from games.forms import (
    ChallengeForm,
    ConfirmForm,
    MatchForm,
    PlacementForm,
    SettingsForm,
    SignupForm,
    first_error,
)
from games.inputs import parse_int
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
from games.nmbr9 import Board, IllegalPlacement, Placement
from games.services import GameState, MoveRefused
from games.svg import board_svg, rating_chart_svg
from games.tasks import send_password_reset
from games.visibility import Hidden

PLAY = "games/game.html#play"
TURN = "games/game.html#turn"
LEADERBOARD_DAYS = 90
POLL_SECONDS = 5


# ------------------------------------------------------------------ home, accounts


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    context: dict = {}
    if request.user.is_authenticated:
        seats = Seat.objects.filter(player=request.user).select_related("match")
        matches = seats.filter(
            match__kind__in=[Match.Kind.MATCH, Match.Kind.CHALLENGE]
        ).prefetch_related("match__seats__player")
        active = matches.filter(match__status=Match.Status.ACTIVE, state=Seat.State.PLAYING)
        context["your_move"] = active.filter(deadline__isnull=False).order_by("deadline")
        context["waiting"] = active.filter(deadline__isnull=True).order_by("-match__started")
        context["pending"] = matches.filter(match__status=Match.Status.WAITING)
        context["active"] = seats.filter(
            match__kind=Match.Kind.SOLO, match__status=Match.Status.ACTIVE
        )[:20]
        context["recent"] = seats.filter(match__status=Match.Status.FINISHED).order_by(
            "-match__finished"
        )[:10]
        context["seeks"] = _open_seeks(request.user)[:20]
    return render(request, "games/home.html", context)


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
        try:
            return create(form.cleaned_data)
        except MoveRefused as exc:
            error = str(exc)
    status = 400 if form.errors or error else 200
    return render(request, template, {"form": form, "error": error}, status=status)


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
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(_posted(request))
    if request.method == "POST":
        wait = limits.over_limit(request, "signup", "ip", limits.SIGNUPS)
        if wait:
            error = f"Too many sign-ups from your address. Try again in {wait} minutes."
            context = {"form": SignupForm(), "error": error}
            return render(request, "registration/signup.html", context, status=429)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "registration/signup.html", {"form": form}, status=status)


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
            error = f"Too many reset e-mails asked for. Try again in {wait} minutes."
            context = {"form": form, "error": error}
            return render(request, "registration/password_reset_form.html", context, status=429)
        if not queue.send_now(send_password_reset, email):
            mails.send_password_reset(email)  # the broker is away: send it now
        return redirect("password_reset_done")
    status = 400 if form.errors else 200
    return render(request, "registration/password_reset_form.html", {"form": form}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
    profile, _ = Profile.objects.get_or_create(player=request.user)
    form = SettingsForm(_posted(request), instance=profile)
    if request.method == "POST" and form.is_valid():
        form.save()
        return render(request, "games/settings.html", {"form": form, "saved": True})
    status = 400 if form.errors else 200
    return render(request, "games/settings.html", {"form": form}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def notifications(request: HttpRequest) -> HttpResponse:
    mine = Notification.objects.filter(player=request.user)
    if request.method == "POST":
        mine.filter(read=False).update(read=True)
        return redirect("notifications")
    items = list(mine.select_related("match")[:100])
    return render(request, "games/notifications.html", {"items": items})


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    stats = PlayerStats.objects.filter(player=player).first()
    rating = Rating.objects.filter(player=player, pool=Rating.Pool.MATCH).first()
    puzzle_rating = Rating.objects.filter(player=player, pool=Rating.Pool.PUZZLE).first()
    changes = list(
        RatingChange.objects.filter(player=player, pool=Rating.Pool.MATCH).order_by("id")
    )
    finished = Seat.objects.filter(player=player, match__status=Match.Status.FINISHED)
    matches = finished.filter(match__kind=Match.Kind.MATCH)
    match_figures = matches.aggregate(
        games=Count("id"), wins=Count("id", filter=Q(rank=1)), average=Avg("score")
    )
    recent = finished.select_related("match").order_by("-match__finished")[:20]
    context = {
        "player": player,
        "stats": stats,
        "rating": rating,
        "provisional": rating is not None and ratings.is_provisional(rating.games),
        "puzzle_rating": puzzle_rating,
        "puzzle_provisional": puzzle_rating is not None
        and ratings.is_provisional(puzzle_rating.games),
        "streak": puzzles.streak(player),
        "match_figures": match_figures,
        "chart": rating_chart_svg([c.after for c in changes], start=ratings.START),
        "recent": recent,
    }
    return render(request, "games/profile.html", context)


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    since = timezone.now() - timedelta(days=LEADERBOARD_DAYS)
    leaders = (
        Rating.objects.filter(
            pool=Rating.Pool.MATCH,
            games__gte=ratings.PROVISIONAL_GAMES,
            updated__gte=since,
        )
        .select_related("player")
        .order_by("-value")[:100]
    )
    return render(request, "games/leaderboard.html", {"leaders": leaders})


# ------------------------------------------------------------------ starting games


@login_required
@require_POST
def new_solo(request: HttpRequest) -> HttpResponse:
    match = services.start_solo(request.user)
    return redirect(match)


@login_required
@require_http_methods(["GET", "POST"])
def new_match(request: HttpRequest) -> HttpResponse:
    def create(data):
        match = services.create_match(
            request.user,
            players=data["players"],
            pace=data["pace"],
            time_control=data["time_control"],
            rated=data["rated"],
            removed=data["removed"],
            invite=data["invite"],
            open=data["open"],
        )
        return redirect(match)

    return _create_form(request, MatchForm, "games/new_match.html", create)


# ------------------------------------------------------------------ the game page


def _match_and_seat(request: HttpRequest, match_id: int) -> tuple[Match, list[Seat], Seat | None]:
    try:
        return services.open_match(match_id, request.user)
    except Match.DoesNotExist:
        raise Http404("No game of yours has this number.") from None


def _hidden(request: HttpRequest, reason: Hidden) -> HttpResponse:
    """The page shown instead of a game whose puzzle order is still secret for the viewer."""
    return render(request, "games/hidden.html", {"reason": str(reason)}, status=403)


def _default_ghost(board: Board, number: int) -> Placement:
    """A legal spot near the middle of the display, so Confirm works at once."""
    legal = board.legal_placements(number)
    cells = [c for p, _ in board.tiles for c in p.cells()]
    cx = sum(x for x, _ in cells) / len(cells) if cells else 0
    cy = sum(y for _, y in cells) / len(cells) if cells else 0
    return min(legal, key=lambda p: ((p.x - cx) ** 2 + (p.y - cy) ** 2, str(p)))


@dataclass(frozen=True, slots=True)
class Display:
    """One player's display as the viewer may see it."""

    seat: Seat
    score: int
    svg: str
    placed: int
    to_move: bool


@dataclass(frozen=True, slots=True)
class LogEntry:
    round: int
    text: str


def _match_log(
    seats: list[Seat], boards: dict[int, Board], horizon: int | None = None
) -> list[LogEntry]:
    """What happened in the match as far as the viewer can see it, newest first.

    ``boards`` are the displays as the viewer sees them; in free pace ``horizon`` is the
    viewer's own round, and a player who left later is shown leaving there."""
    entries = []
    for index, board in boards.items():
        name = seats[index].player.username
        for round, (placement, level) in enumerate(board.tiles, start=1):
            entries.append(
                (
                    round,
                    index,
                    LogEntry(round, f"{name} placed a {placement.number} on level {level}."),
                )
            )
    for seat in seats:
        if seat.has_left:
            verb = "resigned" if seat.state == Seat.State.RESIGNED else "was dropped"
            round = seat.placed + (seat.state == Seat.State.RESIGNED)
            if horizon is not None:
                round = min(round, horizon)
            entries.append((round, 99, LogEntry(round, f"{seat.player.username} {verb}.")))
    entries.sort(key=lambda e: (e[0], e[1]), reverse=True)
    return [entry for _, _, entry in entries]


def _version(match: Match, seats: list[Seat], viewer: Seat | None) -> str:
    """Changes whenever anything the viewer may see changes, and tells nothing more: in free
    pace an opponent's progress counts only up to the viewer's own."""
    horizon = None
    if viewer is not None and match.pace == Match.Pace.FREE and not match.is_finished:
        horizon = viewer.placed
    seen = [
        (
            s.state,
            s.placed if horizon is None or s is viewer else min(s.placed, horizon),
            s.total_strikes,
        )
        for s in seats
    ]
    digest = hashlib.sha256(repr((match.status, seen)).encode()).hexdigest()
    return f"{match.status}-{digest[:16]}"


def _play_context(
    request: HttpRequest,
    state: GameState,
    seats: list[Seat],
    *,
    at: tuple[int, int, int] | None = None,
    error: str = "",
    focus: int | None = None,
) -> dict:
    game, match, me = state.game, state.match, state.seat
    is_player = me.player_id == request.user.pk
    url = match.get_absolute_url()
    context = {
        "match": match,
        "seat": me,
        "seats": seats,
        "is_player": is_player,
        "error": error,
        "rounds": game.rounds,
        "version": _version(match, seats, me if is_player else None),
    }
    if is_player and not match.is_finished:
        view = game.player_view(me.index)
        board = game.board(me.index)
        number = None if me.has_left else view.current_number
        opponents = [(o.player, o.placements, o.score) for o in view.opponents]
        context["round"] = view.round
        context["supply"] = sorted(view.supply.items())
        context["waiting_for"] = [seats[i] for i in view.waiting_for if i != me.index]
    else:
        board = game.board(me.index)
        number = None
        opponents = [
            (s.index, game.board(s.index).placements, game.board(s.index).score())
            for s in seats
            if s.index != me.index
        ]
        context["round"] = game.round_of(me.index)
        context["supply"] = sorted(game.supply(me.index).items())
    context["number"] = number
    context["score"] = board.score()
    boards = {index: Board.from_placements(placements) for index, placements, _ in opponents}
    context["displays"] = [
        Display(
            seat=seats[index],
            score=score,
            svg=board_svg(
                boards[index],
                title=f"Display of {seats[index].player.username}",
                css_class="board" if index == focus else "board small",
            ),
            placed=len(placements),
            to_move=seats[index].deadline is not None and match.pace == Match.Pace.ROUNDS,
        )
        for index, placements, score in opponents
    ]
    if not match.is_solo:
        boards[me.index] = board
        free = match.pace == Match.Pace.FREE and is_player and not match.is_finished
        context["log"] = _match_log(seats, boards, game.round_of(me.index) if free else None)
    context["focus"] = focus
    ghost = None
    if number is not None:
        ghost = _default_ghost(board, number) if at is None else Placement(number, *at)
        try:
            context["level"] = board.level_of(ghost)
            context["gain"] = number * context["level"]
            context["legal"] = True
        except IllegalPlacement as exc:
            context["legal"] = False
            context["reason"] = exc.reason
        x, y, r = ghost.x, ghost.y, ghost.rotation
        moves = {
            "left": (x - 1, y, r),
            "right": (x + 1, y, r),
            "up": (x, y - 1, r),
            "down": (x, y + 1, r),
            "rotate": (x, y, (r + 1) % 4),
            "rotate_back": (x, y, (r - 1) % 4),
        }
        context["moves"] = {
            name: f"{url}?{urlencode({'x': mx, 'y': my, 'rotation': mr})}"
            for name, (mx, my, mr) in moves.items()
        }
        context["ghost"] = ghost
        context["ghost_w"], context["ghost_h"] = ghost.size
    context["polling"] = match.status == Match.Status.WAITING or (
        match.status == Match.Status.ACTIVE and is_player and number is None
    )
    if match.puzzle_id and match.is_finished:
        context["par"] = match.puzzle.par if _finished_puzzle(request.user, match.puzzle) else None
    if match.is_finished and match.kind == Match.Kind.SOLO:
        best = services.personal_best(me.player)
        context["best"] = best
        context["new_best"] = best is not None and me.score >= best
    if match.is_finished and match.rated:
        context["rating_changes"] = {
            c.player_id: c for c in RatingChange.objects.filter(match=match)
        }
    context["svg"] = board_svg(
        board,
        ghost=ghost,
        ghost_legal=context.get("legal", False),
        interactive=ghost is not None,
        title=f"Display of {me.player.username}",
    )
    return context


def _render_play(
    request: HttpRequest,
    state: GameState,
    seats: list[Seat],
    *,
    status: int = 200,
    **kwargs,
) -> HttpResponse:
    context = _play_context(request, state, seats, **kwargs)
    if request.htmx:
        # A preview changes only the turn: the tile, its verdict and the controls.
        partial = TURN if kwargs.get("at") is not None else PLAY
        response = render(request, partial, context, status=status)
        ghost = context.get("ghost")
        url = state.match.get_absolute_url()
        if ghost is not None and kwargs.get("at") is not None:
            query = urlencode({"x": ghost.x, "y": ghost.y, "rotation": ghost.rotation})
            url = f"{url}?{query}"
        return replace_url(response, url)
    return render(request, "games/game.html", context, status=status)


def _game_page(request: HttpRequest, match_id: int, *, status: int = 200, **kwargs) -> HttpResponse:
    match, seats, seat = _match_and_seat(request, match_id)
    if match.status in (Match.Status.WAITING, Match.Status.CANCELLED):
        context = {
            "match": match,
            "seats": seats,
            "seat": seat,
            "free": match.players - len(seats),
            "error": kwargs.get("error", ""),
            "polling": match.status == Match.Status.WAITING,
            "version": _version(match, seats, seat),
        }
        template = PLAY if request.htmx else "games/game.html"
        return render(request, template, context, status=status)
    if status == 200 and kwargs.get("at") is None:
        services.seen(match, seat)
    state = services.load_state(match, seat or seats[0], seats)
    return _render_play(request, state, seats, status=status, **kwargs)


@require_GET
def game(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        return _game(request, match_id)
    except Hidden as exc:
        return _hidden(request, exc)


def _game(request: HttpRequest, match_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        match = get_object_or_404(Match, pk=match_id)
        if not match.is_finished:
            return redirect_to_login(request.get_full_path())
    if "poll" in request.GET:
        match, seats, seat = _match_and_seat(request, match_id)
        if request.GET["poll"] == _version(match, seats, seat):
            return HttpResponse(status=204)
        return _game_page(request, match_id)
    focus = request.GET.get("focus")
    if focus is not None:
        try:
            index = parse_int(focus, minimum=0, maximum=99)
        except ValueError:
            return _game_page(request, match_id, status=400, error="focus: not a player.")
        return _game_page(request, match_id, focus=index)
    if not request.GET:
        return _game_page(request, match_id)
    form = PlacementForm(request.GET)
    if not form.is_valid():
        return _game_page(request, match_id, status=400, error=first_error(form))
    at = (form.cleaned_data["x"], form.cleaned_data["y"], form.cleaned_data["rotation"])
    return _game_page(request, match_id, at=at)


@login_required
@require_POST
def place(request: HttpRequest, match_id: int) -> HttpResponse:
    form = ConfirmForm(request.POST)
    if not form.is_valid():
        _match_and_seat(request, match_id)
        return _game_page(request, match_id, status=400, error=first_error(form))
    data = form.cleaned_data
    at = (data["x"], data["y"], data["rotation"])
    try:
        state = services.place(
            match_id, request.user, x=at[0], y=at[1], rotation=at[2], round=data["round"]
        )
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        return _game_page(request, match_id, status=400, at=at, error=str(exc))
    if not request.htmx:
        return redirect(state.match)
    seats = list(state.match.seats.select_related("player").order_by("index"))
    return _render_play(request, state, seats)


def _act(request: HttpRequest, match_id: int, action) -> HttpResponse:
    """Run a match action for the requesting player; refusals come back as a 400 page."""
    try:
        action(match_id, request.user)
    except (Seat.DoesNotExist, Match.DoesNotExist):
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        return _game_page(request, match_id, status=400, error=str(exc))
    return redirect("game", match_id)


@login_required
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


@require_GET
def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """Step through a finished match round by round, every player's display side by side."""
    try:
        match, seats, _ = _match_and_seat(request, match_id)
    except Hidden as exc:
        return _hidden(request, exc)
    if not match.is_finished:
        raise Http404("This match is not finished.")
    game = services.load_state(match, seats[0], seats).game
    try:
        round = parse_int(request.GET.get("round", str(game.rounds)), minimum=0)
    except ValueError:
        round = game.rounds
    round = min(round, game.rounds)
    displays = []
    for seat in seats:
        board = Board.from_placements(game.board(seat.index).placements[:round])
        svg = board_svg(board, title=f"{seat.player.username} after round {round}")
        displays.append(Display(seat, board.score(), svg, len(board), to_move=False))
    context = {
        "match": match,
        "round": round,
        "rounds": game.rounds,
        "displays": displays,
        "previous": round - 1 if round > 0 else None,
        "next": round + 1 if round < game.rounds else None,
    }
    return render(request, "games/replay.html", context)


# ------------------------------------------------------------------ puzzles


def _start_tile_svg(puzzle: Puzzle) -> str:
    board = Board.from_placements([puzzle.start_placement])
    return board_svg(board, title=f"Start tile of {puzzle}", css_class="board small")


def _finished_puzzle(user, puzzle: Puzzle) -> bool:
    """Whether ``user`` may see the puzzle's par: after finishing it once."""
    return (
        user.is_authenticated
        and Seat.objects.filter(
            player=user, match__puzzle=puzzle, match__status=Match.Status.FINISHED
        ).exists()
    )


@require_GET
def puzzle_page(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    if puzzle.daily_on is not None and puzzle.daily_on > puzzles.today():
        raise Http404("This puzzle is not published yet.")
    context = {
        "puzzle": puzzle,
        "start_svg": _start_tile_svg(puzzle),
        "show_par": _finished_puzzle(request.user, puzzle),
    }
    return render(request, "games/puzzle.html", context)


@login_required
@require_POST
def play_puzzle(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    try:
        return redirect(puzzles.start_puzzle(request.user, puzzle))
    except Hidden as exc:
        return _hidden(request, exc)


@require_GET
def daily(request: HttpRequest) -> HttpResponse:
    puzzle = puzzles.publish_daily()
    day = puzzle.daily_on
    results = list(DailyResult.objects.filter(day=day).select_related("player")[:100])
    context = {
        "puzzle": puzzle,
        "day": day,
        "start_svg": _start_tile_svg(puzzle),
        "results": results,
        "show_par": _finished_puzzle(request.user, puzzle),
    }
    if request.user.is_authenticated:
        context["counted"] = next((r for r in results if r.player_id == request.user.pk), None)
        context["in_progress"] = puzzles.daily_attempt(request.user, puzzle)
        context["streak"] = puzzles.streak(request.user)
    return render(request, "games/daily.html", context)


@login_required
@require_POST
def play_daily(request: HttpRequest) -> HttpResponse:
    return redirect(puzzles.play_daily(request.user))


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


@login_required
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


@login_required
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
            error = str(exc) if isinstance(exc, MoveRefused) else "Pick one of the two puzzles."
    if offer.match_id is not None and not error:
        return redirect(offer.match)
    choices = [(p, _start_tile_svg(p)) for p in offer.puzzles]
    context = {"offer": offer, "choices": choices, "error": error}
    return render(request, "games/challenge_offer.html", context, status=400 if error else 200)


@login_required
@require_POST
def rematch(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        offer = puzzles.rematch(match_id, request.user)
    except MoveRefused as exc:
        return _game_page(request, match_id, status=400, error=str(exc))
    return redirect("challenge_offer", offer.pk)
