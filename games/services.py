"""The only code that changes game state in the database.

Every function here is atomic; placing locks the seat row, so two requests for
the same seat run one after the other and the unique (seat, round) constraint
makes a repeated placement land once.
"""

import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Max
from django.utils import timezone

from games.models import Match, Move, PlayerStats, Seat
from games.nmbr9 import Game, IllegalPlacement, Placement


class MoveRefused(ValueError):
    """A request to place that cannot be carried out; ``str()`` says why."""


@dataclass(frozen=True, slots=True)
class GameState:
    """A stored match replayed through the engine, as seen from one seat."""

    match: Match
    seat: Seat
    game: Game

    @property
    def player(self) -> int:
        return self.seat.index


def new_seed() -> int:
    return secrets.randbelow(2**31)


def engine_game(match: Match, moves: list[Move]) -> Game:
    """Replay a match's stored moves through the engine (moves in the order played)."""
    index_of = {seat.pk: seat.index for seat in match.seats.all()}
    return Game.replay(
        players=match.players,
        seed=match.seed,
        pace=match.pace,
        removed=match.removed,
        moves=[(index_of[m.seat_id], m.placement) for m in moves],
    )


def load_state(match: Match, seat: Seat) -> GameState:
    moves = list(Move.objects.filter(seat__match=match).order_by("id"))
    return GameState(match=match, seat=seat, game=engine_game(match, moves))


@transaction.atomic
def start_solo(player, *, seed: int | None = None) -> Match:
    match = Match.objects.create(
        kind=Match.Kind.SOLO,
        seed=new_seed() if seed is None else seed,
        players=1,
        created_by=player,
    )
    Seat.objects.create(match=match, player=player, index=0)
    return match


def place(match_id: int, player, *, x: int, y: int, rotation: int, round: int) -> GameState:
    """Place the seat's current tile at (x, y, rotation) for round ``round``; return the new state.

    ``round`` is the round the player saw when they confirmed. If that round's tile
    is already placed (a double submit), that is accepted when it is the same
    placement, and refused otherwise; nothing changes either way. Raises
    ``Seat.DoesNotExist`` when ``player`` has no seat in the match.
    """
    try:
        with transaction.atomic():
            seat = (
                Seat.objects.select_for_update(of=("self",))
                .select_related("match", "player")
                .get(match_id=match_id, player=player)
            )
            if round <= seat.placed:
                _check_already_placed(seat, round, x=x, y=y, rotation=rotation)
                return load_state(seat.match, seat)
            match = seat.match
            if match.is_finished:
                raise MoveRefused("This game is over.")
            if round != seat.placed + 1:
                raise MoveRefused(f"Round {round} has not started yet.")
            state = load_state(match, seat)
            number = state.game.current_number(seat.index)
            if number is None:
                raise MoveRefused("You have no tile to place right now.")
            placement = Placement(number=number, x=x, y=y, rotation=rotation)
            try:
                level = state.game.place(seat.index, placement)
            except IllegalPlacement as exc:
                raise MoveRefused(exc.reason) from None
            Move.objects.create(
                seat=seat,
                round=round,
                number=number,
                x=x,
                y=y,
                rotation=rotation,
                level=level,
            )
            seat.placed = round
            seat.score = state.game.board(seat.index).score()
            seat.save(update_fields=["placed", "score"])
            if state.game.is_over():
                _finish(match, state.game)
            return state
    except IntegrityError:
        seat = Seat.objects.select_related("match").get(match_id=match_id, player=player)
        _check_already_placed(seat, round, x=x, y=y, rotation=rotation)
        return load_state(seat.match, seat)


def _check_already_placed(seat: Seat, round: int, *, x: int, y: int, rotation: int) -> None:
    move = Move.objects.get(seat=seat, round=round)
    if (move.x, move.y, move.rotation) != (x, y, rotation):
        raise MoveRefused(f"The tile of round {round} is already placed.")


def _finish(match: Match, game: Game) -> None:
    from games.tasks import refresh_player_stats

    outcome = game.outcome()
    seats = list(match.seats.all())
    for seat in seats:
        seat.score = outcome.scores[seat.index]
        seat.rank = outcome.ranks[seat.index]
    Seat.objects.bulk_update(seats, ["score", "rank"])
    match.status = Match.Status.FINISHED
    match.finished = timezone.now()
    match.save(update_fields=["status", "finished"])
    for seat in seats:
        refresh_player_stats.delay_on_commit(seat.player_id)


def personal_best(player) -> int | None:
    return Seat.objects.filter(
        player=player, match__kind=Match.Kind.SOLO, match__status=Match.Status.FINISHED
    ).aggregate(best=Max("score"))["best"]


def refresh_player_stats(player_id: int) -> PlayerStats:
    """Recompute a player's profile figures from their finished games (safe to repeat)."""
    figures = Seat.objects.filter(
        player_id=player_id, match__kind=Match.Kind.SOLO, match__status=Match.Status.FINISHED
    ).aggregate(games=Count("id"), best=Max("score"), average=Avg("score"))
    stats, _ = PlayerStats.objects.update_or_create(
        player_id=player_id,
        defaults={
            "solo_games": figures["games"],
            "solo_best": figures["best"],
            "solo_average": figures["average"],
        },
    )
    return stats
