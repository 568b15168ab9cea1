"""A finished match of nmbrs! move by move: the table and every hand after a move, and what
the move did in words."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from games.inputs import parse_int
from games.nmbrs.view import card_data
from games.services import MatchView, timed_out
from games.services import history as match_history
from games.web.nmbrs.compose import cards
from games.web.nmbrs.words import log_text


def replay(mv: MatchView, query: QueryDict) -> dict[str, Any]:
    """A finished match move by move (``?ply=``): the table and every hand after the
    move, and the moves of the deal so far."""
    history = match_history(mv, everyone=True)
    moves = [f for f in history if f.text is not None]
    last = len(moves)
    try:
        ply = min(parse_int(query.get("ply", str(last)), minimum=0), last)
    except ValueError:
        ply = last
    seats = mv.seats
    shown = moves[ply - 1] if ply else None
    hands = {f.player: f.view.hand for f in history if f.ply == ply}
    view = shown.view if shown is not None else history[0].view
    deals: dict[int, int] = {}
    for index, frame in enumerate(moves, start=1):
        deals.setdefault(frame.view.deal, index)
    before = moves[ply - 2].view if ply > 1 else history[0].view
    said = " ".join(log_text(line, seats) for line in view.log[len(before.log) :])
    fallback = False  # the move shown was made as its player's time ran out
    if shown is not None:
        made = sum(frame.player == shown.player for frame in moves[:ply])
        fallback = made in timed_out(mv).get(shown.player, ())
    return {
        "ply": ply,
        "plies": last,
        "move": None
        if shown is None
        else {"seat": seats[shown.player], "code": shown.text, "text": said, "timed_out": fallback},
        "deal": view.deal,
        "deals": sorted(deals.items()),
        "table": [{"number": s.number, "cards": cards(s.cards)} for s in view.table],
        "discard": None if view.discard is None else card_data(view.discard),
        "hands": [
            {
                "seat": seats[p],
                "cards": [card_data(c) for c in hands[p] or ()],
                "score": view.scores[p],
                "moved": shown is not None and shown.player == p,
            }
            for p in range(len(seats))
        ],
        "previous": ply - 1 if ply > 0 else None,
        "next": ply + 1 if ply < last else None,
    }
