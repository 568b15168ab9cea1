"""The bots' task driver: working out the moves a match's bots owe and making them.

``play_bots`` (sent when settling a match marks a bot's seat, ``bot_seats.settle``, and again by
the sweep for a bot that has owed a move for a while) works out each move outside any lock
(a strong bot thinks for a second or two) and then makes it like a player would
(``play.play`` with the ply it saw, so a move made on a position that has changed since is
refused and worked out again).
"""

from __future__ import annotations

import logging
import random

from games.contract import BotRules
from games.infra import queue
from games.models import Match, Seat
from games.services.match.kept import load
from games.services.match.play import play
from games.services.match.record import MoveRefused, Record

logger = logging.getLogger(__name__)

#: Moves one ``play_bots`` makes at most before it hands over to a new task.
MOVES_PER_TASK = 200


def play_bots(match_id: int) -> int:
    """Make the moves the match's bots owe, one after the other; how many were made."""
    made = 0
    for _attempt in range(MOVES_PER_TASK):
        try:
            match = Match.objects.get(pk=match_id)
        except Match.DoesNotExist:
            return made
        if match.status != Match.Status.ACTIVE:
            return made
        record = load(match)
        owing = record.rules.to_move(record.state)
        seat = next(
            (
                s
                for s in record.seats
                if s.bot and s.state == Seat.State.PLAYING and s.index in owing
            ),
            None,
        )
        if seat is None:
            return made
        move = think(record, seat)
        try:
            play(match_id, seat.player, str(move), record.made_by(seat), commits=True)
        except MoveRefused:
            logger.info("match %s changed while bot %s thought; again", match_id, seat.bot)
            continue
        made += 1
    queue.send("games.tasks.play_bots", match_id)
    return made


def think(record: Record, seat: Seat):
    """The move of the bot in ``seat``, from what the seat's player may know: a state drawn
    by the game's ``sample_hidden`` for the seat, never the state itself."""
    rules = record.rules
    if not isinstance(rules, BotRules):
        raise ValueError(f"bots do not play {rules.slug}")
    rng = random.Random(f"bot:{record.match.seed}:{seat.index}:{record.ply}")
    sample = rules.sample_hidden(record.state, seat.index, rng)
    return rules.bot_move(sample, seat.index, seat.bot, rng)
