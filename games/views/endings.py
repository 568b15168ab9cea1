"""The end of a game on its page: the result's extras (a puzzle's par, the daily's count, a
solo game's best, the rating changes) and what the player may do next; and the tournament a
game is played in, named on its page and its way back at its end."""

from urllib.parse import urlencode

from django.urls import reverse

from games import accounts, services, web
from games.http import SiteRequest
from games.models import Match, RatingChange, Seat, Tournament
from games.registry import find_game, puzzle_games
from games.services import MatchView
from games.services.features import live_duplicate, next_games, puzzles, rematch
from games.services.match import finish, lobby


def in_tournament(match: Match) -> dict:
    """The tournament a game is played in, for its page's heading and its end: a table of a
    swiss (``tournament_round``: its round) or an entrant's game of a duplicate
    (``tournament_game``: its number); nothing for any other game."""
    if match.tournament_id is not None:
        return {"tournament": match.tournament, "tournament_round": match.round}
    if match.kind == Match.Kind.DUPLICATE and match.puzzle is not None:
        deal = match.puzzle
        if deal.tournament_id is not None:
            return {"tournament": deal.tournament, "tournament_game": deal.number}
    return {}


def ending(request: SiteRequest, mv: MatchView, seat_shown: Seat | None) -> dict:
    """What a finished match's page shows at its end, for its reader."""
    match = mv.match
    context: dict = {}  # a tournament's game: the way back is on its page (in_tournament)
    if match.puzzle is not None and match.kind != Match.Kind.DUPLICATE:  # a deal has no par
        shown = puzzles.has_finished(request.user, match.puzzle)
        context["par"] = match.puzzle.par if shown else None
        context["par_pending"] = shown and match.puzzle.par is None
        if match.daily:
            context["counted"] = puzzles.counted_for_its_day(match)
            # A guest's attempt counts once they have an account (if none of its counts).
            context["counts_on_sign_up"] = (
                accounts.is_guest(request) and mv.is_player and finish.on_its_day(match)
            )
    if match.kind == Match.Kind.SOLO and seat_shown is not None:
        best = services.personal_best(seat_shown.player, match.game)
        context["best"] = best
        context["new_best"] = best is not None and seat_shown.score >= best
    context.update(what_next(request, mv))
    context.update(after_game(mv, request.user))
    if match.rated:
        context["rating_changes"] = {
            c.player_id: c for c in RatingChange.objects.filter(match=match)
        }
    return context


def after_game(mv: MatchView, user) -> dict:
    """What the end of a player's game of a tournament adds: their next game of it once
    under way (``next_match``; ``next_live``: played live, opened at once), else every how
    many seconds its page looks for it (``follow_seconds``)."""
    tournament = in_tournament(mv.match).get("tournament")
    if tournament is None or not mv.is_player:
        return {}
    found, seconds = next_games.after_game(tournament, mv.match, user)
    live = tournament.mode == Tournament.Mode.LIVE
    coming = live_duplicate.next_deal(tournament) if seconds and live else None
    return {"next_match": found, "follow_seconds": seconds, "next_live": live, "coming": coming}


def what_next(request: SiteRequest, mv: MatchView) -> dict:
    """What the end of a game offers its player next: the same game again (against the same
    bot, a rematch of a real-time match, or a new match with the same players and options),
    the other games' tutorials and the daily puzzle. A table of a tournament offers no game
    of the same players again: the tournament pairs them (its page is the way back)."""
    match = mv.match
    if not mv.is_player or in_tournament(match):
        return {}  # a tournament's game: its tournament is the way on (``in_tournament``)
    bots = any(seat.bot for seat in mv.seats)
    free = match.puzzle_id is None and match.tournament_id is None
    between_people = match.kind == Match.Kind.MATCH and not bots and free
    same = urlencode({"game": match.game, "again": match.pk})
    return {
        "again_bot": match.kind == Match.Kind.MATCH and bots and free,
        "same_match_url": f"{reverse('new_match')}?{same}"
        if between_people and not match.realtime and not accounts.is_guest(request)
        else "",
        "other_tutorials": [
            {"name": find_game(slug).name, "url": reverse("learn_game", args=[slug])}
            for slug, adapter in web.ADAPTERS.items()
            if slug != match.game and adapter.tutorial is not None
        ],
        "new_opponent": {
            "game": match.game,
            "speed": lobby.speed_of(match),
            "players": match.players,
        }
        if match.realtime and match.tournament_id is None and lobby.speed_of(match)
        else None,
        "daily_puzzle": bool(puzzle_games()) and not match.daily,
        "rematch": rematch.offer(match, mv.seats, mv.seat) if between_people else None,
    }


def awaits_rating(match: Match) -> bool:
    """Whether a finished rated match's rating changes are still to be worked out (the
    page follows them: they come within seconds, ``finish.rate_match``)."""
    return match.is_finished and match.rated and match.rated_at is None


def awaits_answers(context: dict) -> bool:
    """Whether the end of a match waits for its players' answers to a rematch offer (the
    page follows them)."""
    offer = context.get("rematch")
    return offer is not None and offer.waiting
