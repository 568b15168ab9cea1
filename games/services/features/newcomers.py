"""What the site offers a player new to a game (reads only): the tutorial before their first
game of it against a bot, which they may take or leave."""

from __future__ import annotations

from games.models import Match, Move, Seat
from games.services.match.matchview import MatchView


def offers_tutorial(mv: MatchView) -> bool:
    """Whether the page of ``mv`` offers its player the game's tutorial first: a game against
    a bot under way with no clock running (a real-time one would not wait), the player's
    first of this game (they have no other match of it), in which they have made no move
    yet."""
    seat, match = mv.seat, mv.match
    if seat is None or match.status != Match.Status.ACTIVE or match.kind != Match.Kind.MATCH:
        return False
    if match.time_per_move is not None:
        return False
    if not any(s.bot for s in mv.seats):
        return False
    played = (
        Seat.objects.filter(player_id=seat.player_id, match__game=match.game)
        .exclude(match=match)
        .exists()
    )
    return not played and not Move.objects.filter(match=match, seat=seat).exists()
