"""Tournaments: the list, a new one, a tournament's page (its rules, entrants, standings and
the viewer's games), its standings polled by the page, joining, leaving, playing a game, and
every entrant's display of a game side by side once the viewer may see them."""

from __future__ import annotations

from urllib.parse import quote

from django.contrib import messages
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh

from games import accounts, web
from games.forms import SwissForm, TournamentForm
from games.http import AccountRequest, SiteRequest
from games.models import Entry, Match, Seat, SwissRound, Tournament
from games.registry import find_game, puzzle_game
from games.services import MoveRefused, load
from games.services.features import (
    live_duplicate,
    next_games,
    swiss_rounds,
    tournament_chat,
    tournaments,
)
from games.services.match import visibility
from games.services.match.matchview import view_of
from games.views import live_tournaments
from games.views.common import posted_data, too_many_new_games

PAGE = "games/tournaments/tournament.html"


def described(tournament: Tournament) -> list[str]:
    """The tournament's game options in a few words, for its line (its page, the list):
    without a pace, which a tournament has not (each game is played alone, or in step)."""
    options = {name: value for name, value in tournament.options.items() if name != "pace"}
    return web.adapter_for(tournament.game).describe(options)


@require_GET
def tournament_list(request: SiteRequest) -> HttpResponse:
    listed = Tournament.objects.filter(open=True).select_related("created_by")
    sections = []
    for status, title in (
        (Tournament.Status.RUNNING, _("Running")),
        (Tournament.Status.UPCOMING, _("Upcoming")),
        (Tournament.Status.FINISHED, _("Finished")),
    ):
        found = listed.filter(status=status).annotate(entrants=Count("entries"))
        if status == Tournament.Status.FINISHED:
            found = found.order_by("-featured", "-finished")
        rows = [
            {
                "t": t,
                "entrants": t.entrants,
                "game_name": find_game(t.game).name,
                "described": described(t),
            }
            for t in found[:50]
        ]
        sections.append((status, title, rows))
    context = {
        "sections": sections,
        "duplicate_game": find_game(puzzle_game()).name,
        "swiss_game": find_game(swiss_rounds.GAME).name,
        "running_games": live_duplicate.running_games(request.user),
    }
    return render(request, "games/tournaments/list.html", context)


@accounts.account_required
def new_tournament(request: AccountRequest) -> HttpResponse:
    game = puzzle_game()
    adapter = web.adapter_for(game)
    posted = posted_data(request)
    form = TournamentForm(posted)
    options = adapter.options_form(posted)
    error = ""
    if request.method == "POST" and form.is_valid() and options.is_valid():
        error = too_many_new_games(request)
        if not error:
            data = form.cleaned_data
            chosen = {k: v for k, v in options.cleaned_data.items() if k != "pace"}
            common = {
                "name": data["name"],
                "game": game,
                "games": data["games"],
                "starts": data["starts"],
                "open": data["open"],
                "options": chosen,
            }
            try:
                if data["way"] == TournamentForm.LIVE:
                    tournament = live_duplicate.create(request.user, speed=data["speed"], **common)
                else:
                    tournament = tournaments.create(request.user, window=data["window"], **common)
            except MoveRefused as exc:
                error = str(exc)
            else:
                return redirect(tournament)
    status = 400 if form.errors or options.errors or error else 200
    context = {"form": form, "options": options, "error": error, "game_name": find_game(game).name}
    return render(request, "games/tournaments/new.html", context, status=status)


@accounts.account_required
def new_swiss(request: AccountRequest) -> HttpResponse:
    """A new swiss tournament of nmbrs!: its settings and the game's options."""
    game = swiss_rounds.GAME
    posted = posted_data(request)
    form = SwissForm(posted)
    options = web.adapter_for(game).options_form(posted)
    error = ""
    if request.method == "POST" and form.is_valid() and options.is_valid():
        error = too_many_new_games(request)
        if not error:
            data = form.cleaned_data
            try:
                tournament = swiss_rounds.create(
                    request.user,
                    name=data["name"],
                    rounds=data["rounds"],
                    table_size=data["table_size"],
                    pace=data["pace"],
                    starts=data["starts"],
                    open=data["open"],
                    options=options.cleaned_data,
                )
            except MoveRefused as exc:
                error = str(exc)
            else:
                return redirect(tournament)
    status = 400 if form.errors or options.errors or error else 200
    context = {"form": form, "options": options, "error": error, "game_name": find_game(game).name}
    return render(request, "games/tournaments/new_swiss.html", context, status=status)


def _find(request: SiteRequest, tournament_id: int) -> Tournament:
    key = request.POST.get("key", "") or request.GET.get("key", "")
    try:
        return tournaments.find(tournament_id, request.user, key)
    except Tournament.DoesNotExist:
        raise Http404("No tournament has this number.") from None


#: Standings lines on a page: a duplicate of a thousand entrants is read a hundred at a time.
SHOWN = 100


def _standings(request: SiteRequest, tournament: Tournament) -> dict:
    """The standings page asked for (``?page=``, ``SHOWN`` lines each), with the reader's
    own line after them when it is on another page."""
    ordering = ("rank", "-percent", "-score", "joined", "id")
    found = tournament.entries.select_related("player").order_by(*ordering)
    count = found.count()
    pages = max(1, -(-count // SHOWN))
    try:
        number = min(max(1, int(request.GET.get("page", "1"))), pages)
    except ValueError:
        number = 1
    entries = list(found[(number - 1) * SHOWN : number * SHOWN])
    user = request.user
    mine = None
    if user.is_authenticated and all(e.player_id != user.pk for e in entries):
        mine = found.filter(player=user).first()
    return {
        "entries": entries,
        "my_line": mine,
        "standings_page": {
            "number": number,
            "pages": pages,
            "first": (number - 1) * SHOWN + 1,
            "last": (number - 1) * SHOWN + len(entries),
            "count": count,
        },
    }


def _my_games(tournament: Tournament, user) -> list[dict]:
    """The viewer's games of the tournament: each deal, their match on it, and whether it is
    open, closed, and may be compared."""
    deals = list(tournament.deals.order_by("number"))
    mine = {}
    if user.is_authenticated:
        for seat in Seat.objects.filter(player=user, match__puzzle__in=deals).select_related(
            "match"
        ):
            mine[seat.match.puzzle_id] = seat
    now = timezone.now()
    return [
        {
            "deal": deal,
            "seat": mine.get(deal.pk),
            "closed": deal.closes is not None and deal.closes <= now,
            "comparable": visibility.secret_reason(user, deal) is None,
        }
        for deal in deals
    ]


def _swiss(tournament: Tournament, user) -> dict:
    """A swiss's rounds (newest first: each table's match and seats, the byes), its
    standings with the entrants' names, and the viewer's table in the round under way."""
    if tournament.format != Tournament.Format.SWISS:
        return {}
    seats: dict[int, list[Seat]] = {}
    found = Seat.objects.filter(match__tournament=tournament).select_related("match", "player")
    for seat in found.order_by("match_id", "index"):
        seats.setdefault(seat.match.round or 0, []).append(seat)
    names = {e.player_id: e.player for e in tournament.entries.select_related("player")}
    rounds, mine = [], None
    for played in SwissRound.objects.filter(tournament=tournament).order_by("-number"):
        tables: dict[int, list[Seat]] = {}
        for seat in seats.get(played.number, []):
            tables.setdefault(seat.match_id, []).append(seat)
            if mine is None and user.is_authenticated and seat.player_id == user.pk:
                mine = {"round": played.number, "match": seat.match}
        byes = [names[pk] for pk in played.byes if pk in names]
        rounds.append({"number": played.number, "tables": list(tables.values()), "byes": byes})
    lines = [
        {
            "line": line,
            "player": names[line.entrant],
            "score": float(line.score),
            "buchholz": float(line.buchholz),
            "sb": float(line.sonneborn_berger),
        }
        for line in swiss_rounds.standings(tournament)
        if line.entrant in names
    ]
    return {"swiss": True, "rounds": rounds, "lines": lines, "mine": mine}


def _entry(tournament: Tournament, user) -> dict:
    """Whether the reader is an entrant (``entered``), and one who withdrew from a swiss."""
    mine = None
    if user.is_authenticated:
        mine = Entry.objects.filter(tournament=tournament, player=user).first()
    return {"entered": mine is not None, "withdrawn": mine is not None and mine.withdrawn}


@never_cache
@require_GET
def tournament_page(request: SiteRequest, tournament_id: int) -> HttpResponse:
    tournament = _find(request, tournament_id)
    user = request.user
    context = {
        **_swiss(tournament, user),
        **_standings(request, tournament),
        **_entry(tournament, user),
        **live_tournaments.live_context(tournament, user),
        "tournament": tournament,
        "games": _my_games(tournament, user),
        "game_name": find_game(tournament.game).name,
        "described": described(tournament),
        "creator": user.is_authenticated and user.pk == tournament.created_by_id,
        "link": request.build_absolute_uri(
            f"{tournament.get_absolute_url()}?key={tournament.token}"
        ),
        "key": request.GET.get("key", ""),
        "live": tournament.status in (Tournament.Status.UPCOMING, Tournament.Status.RUNNING),
        "chat": tournament_chat.messages(tournament, user, request.GET.get("key", "")),
    }
    return render(request, PAGE, context)


@never_cache
@require_GET
def standings(request: SiteRequest, tournament_id: int) -> HttpResponse:
    """The standings table alone: the page polls it while the tournament runs. Once the
    tournament is in another state than the page shows (``?state=``: it started, or it is
    over), the whole page is fetched again: its games and buttons change too."""
    tournament = _find(request, tournament_id)
    shown = request.GET.get("state")
    if shown and shown != tournament.status:
        # A live one started: the entrant's game opens at once (its clock runs).
        game = next_games.opened_at_once(tournament, request.user)
        if game is not None:
            return HttpResponseClientRedirect(game.get_absolute_url())
        return HttpResponseClientRefresh()
    context = {
        **_swiss(tournament, request.user),
        **_standings(request, tournament),
        "tournament": tournament,
    }
    return render(request, f"{PAGE}#standings", context)


def _back(request: AccountRequest, tournament: Tournament, error: str = "") -> HttpResponse:
    if error:
        context = {
            **_swiss(tournament, request.user),
            **_standings(request, tournament),
            "tournament": tournament,
            **_entry(tournament, request.user),
            **live_tournaments.live_context(tournament, request.user),
            "games": _my_games(tournament, request.user),
            "game_name": find_game(tournament.game).name,
            "described": described(tournament),
            "error": error,
            "key": request.POST.get("key", ""),
        }
        return render(request, PAGE, context, status=400)
    url = tournament.get_absolute_url()
    key = request.POST.get("key", "")
    return redirect(f"{url}?key={key}" if key else url)


def _act(request: AccountRequest, tournament_id: int, action) -> HttpResponse:
    """Do ``action(tournament)`` for the player and go back to the tournament's page (with
    the reason, when it is refused)."""
    tournament = _find(request, tournament_id)
    try:
        action(tournament)
    except MoveRefused as exc:
        return _back(request, tournament, str(exc))
    return _back(request, tournament)


@accounts.account_required
@require_POST
def join(request: AccountRequest, tournament_id: int) -> HttpResponse:
    key = request.POST.get("key", "")
    return _act(request, tournament_id, lambda t: tournaments.join(t.pk, request.user, key))


@accounts.account_required
@require_POST
def leave(request: AccountRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, lambda t: tournaments.leave(t.pk, request.user))


@accounts.account_required
@require_POST
def withdraw(request: AccountRequest, tournament_id: int) -> HttpResponse:
    """Leave a running swiss or live duplicate (its pages ask first): paired or dealt no
    more games, and told so."""
    swiss = _find(request, tournament_id).format == Tournament.Format.SWISS
    leave = swiss_rounds.withdraw if swiss else live_duplicate.withdraw
    response = _act(request, tournament_id, lambda t: leave(t.pk, request.user))
    if response.status_code == 302:
        if swiss:
            told = _(
                "You have withdrawn from the tournament: you will be paired no more. "
                "A table of yours under way is still yours to finish."
            )
        else:
            told = _("You have left the tournament. Your scores so far count; the others play on.")
        messages.success(request, told)
    return response


@accounts.account_required
@require_POST
def play(request: AccountRequest, tournament_id: int, number: int) -> HttpResponse:
    tournament = _find(request, tournament_id)
    try:
        match = tournaments.play(tournament.pk, request.user, number)
    except MoveRefused as exc:
        return _back(request, tournament, str(exc))
    return redirect(match)


@never_cache
@require_GET
def compare(request: SiteRequest, tournament_id: int, number: int) -> HttpResponse:
    """Every entrant's display of game ``number``, side by side: once its order is no
    secret for the viewer (their own game on it finished, or the game closed)."""
    tournament = _find(request, tournament_id)
    deal = tournament.deals.filter(number=number).first()
    if deal is None:
        raise Http404("This game of the tournament has not begun.")
    reason = visibility.secret_reason(request.user, deal)
    if reason:
        key = request.GET.get("key", "")
        back = tournament.get_absolute_url() + (f"?key={quote(key)}" if key else "")
        raise visibility.Hidden(reason, back=back)
    adapter = web.adapter_for(tournament.game)
    shown = []
    matches = Match.objects.filter(
        puzzle=deal, kind=Match.Kind.DUPLICATE, status=Match.Status.FINISHED
    ).select_related("puzzle")
    for match in matches:
        record = load(match)
        seat = record.seats[0]
        mv = view_of(record, seat)
        shown.append({"seat": seat, "match": match, "picture": adapter.glance(mv)})
    shown.sort(key=lambda row: (-row["seat"].score, row["seat"].player.username))
    context = {"tournament": tournament, "deal": deal, "shown": shown}
    return render(request, "games/tournaments/compare.html", context)
