"""A finished match of NMBR 9 step by step: every display after a round, the turns taken
in it in words, the scores by round as a chart and, on a puzzle, the par game beside."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from games.inputs import parse_int
from games.models import Seat
from games.names import shown
from games.nmbr9 import Board
from games.services import MatchView, history, solo_line, timed_out
from games.web.base import LogEntry
from games.web.charts import score_chart
from games.web.nmbr9.spoken import display_words
from games.web.nmbr9.svg import board_svg
from games.web.nmbr9.words import StepWords, marked


@dataclass(frozen=True, slots=True)
class Display:
    """One player's display as the viewer may see it."""

    seat: Seat
    score: int
    svg: str
    placed: int
    to_move: bool
    specials_used: tuple[str, ...] = ()
    fillers_used: tuple[str, ...] = ()
    #: Points scored on each level from 1 up: (level, points).
    levels: tuple[tuple[int, int], ...] = ()
    #: Every tile in words (``spoken.display_words``).
    in_words: tuple[str, ...] = ()


def built(display) -> int:
    """How many number tiles lie on a display (not its fillers; a rejected or reserved card
    is on none)."""
    return sum(1 for placement, _level in display.tiles if placement.number is not None)


def replay(mv: MatchView, query: QueryDict, *, par_line: list[str] | None = None) -> dict[str, Any]:
    """Every display after a round (``?round=``), for stepping through a finished match,
    with the turns each player took in that round, step by step in words (the match log's
    sentences, ``Said``), and the tiles they placed in it highlighted; the scores by round
    as a chart. On a puzzle, with ``par_line`` (the moves that reach par), the par game
    with as many tiles beside."""
    timelines = _timelines(history(mv))
    per_round = mv.view.options.steps_per_round  # cards a player deals with in a round
    steps = max((t[-1].progress for t in timelines.values()), default=0)
    rounds = -(-steps // per_round)
    try:
        round = parse_int(query.get("round", str(rounds)), minimum=0)
    except ValueError:
        round = rounds
    round = min(round, rounds)
    # The match is over: every player's steps are known in full.
    logs = {display.player: display.log for display in mv.view.displays}
    fallbacks = timed_out(mv)  # the moves made as a player's time ran out say so
    words = StepWords()
    displays, turns = [], []
    for player, timeline in timelines.items():
        seat = mv.seats[player]
        step = _step_at(timeline, round * per_round)
        start = _step_at(timeline, (round - 1) * per_round) if round else step
        display = timeline[step]
        name = shown(seat.player.username)
        texts = [
            LogEntry("", said.text, said.notation, fallback)
            for logged, fallback in marked(logs[player], fallbacks.get(player, frozenset()))
            if logged.round == round
            for said in words(name, logged)
        ]
        before = set(timeline[start].tiles)
        placed_now = [tile for tile in display.tiles if tile not in before]
        title = _("%(player)s after round %(round)s") % {
            "player": shown(seat.player.username),
            "round": round,
        }
        board = display.board()
        svg = board_svg(board, title=title, highlight=placed_now)
        in_words = tuple(display_words(board))
        displays.append(
            Display(seat, display.score, svg, built(display), to_move=False, in_words=in_words)
        )
        turns.append((seat, texts))
    par = _par_boards(mv, par_line) if par_line else None
    series = [
        (
            shown(mv.seats[player].player.username),
            [timeline[_step_at(timeline, r * per_round)].score for r in range(rounds + 1)],
        )
        for player, timeline in timelines.items()
    ]
    reference = _("Par game") if par else ""
    if par:
        scores = [par[max(0, min(r, len(par)) - 1)].score() for r in range(rounds + 1)]
        series.append((reference, scores))
    return {
        "turns": turns,
        "round": round,
        "rounds": rounds,
        "displays": displays,
        "par": _par_display(par, displays[0].placed) if par else None,
        "chart": score_chart(series, rounds, round, reference=reference),
        "previous": round - 1 if round > 0 else None,
        "next": round + 1 if round < rounds else None,
    }


def _par_boards(mv: MatchView, line: list[str]) -> list[Board]:
    """The game that reaches the puzzle's par after each of its tiles (the first holds
    only the start tile)."""
    return [view.displays[0].board() for view in solo_line(mv, line)]


def _par_display(boards: list[Board], placed: int) -> dict[str, Any]:
    """The par game when it has ``placed`` tiles (the start tile is the first)."""
    board = boards[max(0, min(placed, len(boards)) - 1)]
    title = _("Par game with %(count)s tiles") % {"count": placed}
    return {"svg": board_svg(board, title=title), "score": board.score(), "placed": placed}


def _step_at(timeline: list[Any], progress: int) -> int:
    """The index in a player's timeline of their display once they had dealt with
    ``progress`` cards (their last one if they stopped before, their first if it is before
    their first)."""
    steps = [i for i, display in enumerate(timeline) if display.progress <= progress]
    return steps[-1] if steps else 0


def _timelines(frames) -> dict[int, list[Any]]:
    """Each player's display after each of their moves (index 0: at the start), from the
    frames of a finished match (a step the rules took by themselves shows with a move)."""
    timelines: dict[int, list[Any]] = {}
    for frame in frames:
        own = frame.view.displays[frame.player]
        timeline = timelines.setdefault(frame.player, [])
        if not timeline or own.progress > timeline[-1].progress:
            timeline.append(own)
        else:
            timeline[-1] = own
    return timelines
