from urllib.parse import urlencode

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import replace_url

from games import services
from games.forms import ConfirmForm, PlacementForm, SignupForm, first_error
from games.models import Match, PlayerStats, Seat
from games.nmbr9 import IllegalPlacement, Placement
from games.services import GameState, MoveRefused
from games.svg import board_svg

PLAY = "games/game.html#play"


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    context = {}
    if request.user.is_authenticated:
        seats = Seat.objects.filter(player=request.user).select_related("match")
        context["active"] = seats.filter(match__status=Match.Status.ACTIVE)[:20]
        context["recent"] = seats.filter(match__status=Match.Status.FINISHED).order_by(
            "-match__finished"
        )[:10]
    return render(request, "games/home.html", context)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "registration/signup.html", {"form": form}, status=status)


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    stats = PlayerStats.objects.filter(player=player).first()
    recent = (
        Seat.objects.filter(player=player, match__status=Match.Status.FINISHED)
        .select_related("match")
        .order_by("-match__finished")[:20]
    )
    return render(
        request, "games/profile.html", {"player": player, "stats": stats, "recent": recent}
    )


@login_required
@require_POST
def new_solo(request: HttpRequest) -> HttpResponse:
    match = services.start_solo(request.user)
    return redirect(match)


def _state_for(request: HttpRequest, match_id: int, *, to_play: bool) -> GameState:
    """The game as seen by the requesting player; finished games are public."""
    match = get_object_or_404(Match.objects.prefetch_related("seats__player"), pk=match_id)
    seats = list(match.seats.all())
    seat = next((s for s in seats if s.player_id == request.user.pk), None)
    if seat is None:
        if to_play or not match.is_finished:
            raise Http404("No game of yours has this number.")
        seat = seats[0]
    return services.load_state(match, seat)


def _default_ghost(state: GameState, number: int) -> Placement:
    """A legal spot near the middle of the display, so Confirm works at once."""
    board = state.game.board(state.player)
    legal = board.legal_placements(number)
    cells = [c for p, _ in board.tiles for c in p.cells()]
    cx = sum(x for x, _ in cells) / len(cells) if cells else 0
    cy = sum(y for _, y in cells) / len(cells) if cells else 0
    return min(legal, key=lambda p: ((p.x - cx) ** 2 + (p.y - cy) ** 2, str(p)))


def _play_context(
    request: HttpRequest,
    state: GameState,
    *,
    at: tuple[int, int, int] | None = None,
    error: str = "",
) -> dict:
    game, player, match = state.game, state.player, state.match
    board = game.board(player)
    number = None if match.is_finished else game.current_number(player)
    context = {
        "match": match,
        "seat": state.seat,
        "is_player": state.seat.player_id == request.user.pk,
        "score": board.score(),
        "round": game.round_of(player),
        "rounds": game.rounds,
        "supply": sorted(game.supply(player).items()),
        "number": number,
        "error": error,
    }
    ghost = None
    if number is not None and context["is_player"]:
        if at is None:
            ghost = _default_ghost(state, number)
        else:
            x, y, rotation = at
            ghost = Placement(number=number, x=x, y=y, rotation=rotation)
        try:
            context["level"] = board.level_of(ghost)
            context["gain"] = number * context["level"]
            context["legal"] = True
        except IllegalPlacement as exc:
            context["legal"] = False
            context["reason"] = exc.reason
        url = match.get_absolute_url()
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
    if match.is_finished:
        best = services.personal_best(state.seat.player)
        context["best"] = best
        context["new_best"] = best is not None and state.seat.score >= best
    context["svg"] = board_svg(
        board,
        ghost=ghost,
        ghost_legal=context.get("legal", False),
        interactive=ghost is not None,
        title=f"Display of {state.seat.player.username}",
    )
    return context


def _render_play(
    request: HttpRequest, state: GameState, *, status: int = 200, **kwargs
) -> HttpResponse:
    context = _play_context(request, state, **kwargs)
    if request.htmx:
        response = render(request, PLAY, context, status=status)
        ghost = context.get("ghost")
        url = state.match.get_absolute_url()
        if ghost is not None and kwargs.get("at") is not None:
            query = urlencode({"x": ghost.x, "y": ghost.y, "rotation": ghost.rotation})
            url = f"{url}?{query}"
        return replace_url(response, url)
    return render(request, "games/game.html", context, status=status)


@require_GET
def game(request: HttpRequest, match_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        match = get_object_or_404(Match, pk=match_id)
        if not match.is_finished:
            return redirect_to_login(request.get_full_path())
    state = _state_for(request, match_id, to_play=False)
    if not request.GET:
        return _render_play(request, state)
    form = PlacementForm(request.GET)
    if not form.is_valid():
        return _render_play(request, state, status=400, error=first_error(form))
    at = (form.cleaned_data["x"], form.cleaned_data["y"], form.cleaned_data["rotation"])
    return _render_play(request, state, at=at)


@login_required
@require_POST
def place(request: HttpRequest, match_id: int) -> HttpResponse:
    form = ConfirmForm(request.POST)
    if not form.is_valid():
        state = _state_for(request, match_id, to_play=True)
        return _render_play(request, state, status=400, error=first_error(form))
    data = form.cleaned_data
    at = (data["x"], data["y"], data["rotation"])
    try:
        state = services.place(
            match_id, request.user, x=at[0], y=at[1], rotation=at[2], round=data["round"]
        )
    except Seat.DoesNotExist:
        raise Http404("No game of yours has this number.") from None
    except MoveRefused as exc:
        state = _state_for(request, match_id, to_play=True)
        return _render_play(request, state, status=400, at=at, error=str(exc))
    if not request.htmx:
        return redirect(state.match)
    return _render_play(request, state)
