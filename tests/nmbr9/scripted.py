"""Helpers for NMBR 9 ++ scenario tests: games with a chosen card order, refusals that must
leave no trace."""

from collections import Counter

import pytest

from games.contract import IllegalMove
from games.nmbr9 import Deal, Game, Options, Placement, Turn
from games.nmbr9.policy import fallback_placement
from games.nmbr9.rules import RULES
from games.nmbr9.setup import DECKS

P = Placement.parse
T = Turn.parse


def auto_place(game: Game, player: int) -> Placement:
    """Place ``player``'s current tile where the fallback policy puts it; returns it."""
    placement = fallback_placement(game, player)
    game.place(player, placement)
    return placement


def auto_play(game: Game, player: int) -> Turn:
    """Play the turn the platform plays for ``player`` on a missed deadline; returns it."""
    turn = RULES.auto_move(game, player)
    RULES.apply(game, player, turn)
    return turn


def deal_starting(first, variant="base", start_tiles=(), specials=()):
    """A deal whose cards begin with ``first``, the rest of the deck after them in order."""
    rest = Counter(DECKS[variant]) - Counter(first)
    assert sum(Counter(first).values()) == len(first) and not Counter(first) - Counter(
        DECKS[variant]
    ), "more cards of a number than the deck holds"
    return Deal(
        cards=(*first, *sorted(rest.elements())),
        start_tiles=tuple(start_tiles),
        specials=tuple(specials),
    )


def scripted(first, players=1, pace="rounds", starts=(), **options):
    """A game whose cards begin with ``first``; ``starts``: the start tiles dealt (module
    "new start tiles"); the special tiles in play are those named in ``options``."""
    options = Options(start_tiles=bool(starts), **options)
    deal = deal_starting(first, options.variant, starts, options.specials)
    return Game(players, seed=None, pace=pace, options=options, deal=deal)


def everything(game):
    """Everything about a game that a refusal must not change."""
    viewers = [*range(game.players), None]
    return (
        game.to_dict(),
        [game.view(v).to_dict() for v in viewers],
        [game.board(p).tiles for p in range(game.players)],
        [game.decision(p) for p in range(game.players)],
    )


def refused_turn(game, player, text, code):
    """Play ``text`` and check it is refused with ``code``, leaving no trace."""
    before = everything(game)
    with pytest.raises(IllegalMove) as info:
        game.play(player, T(text) if isinstance(text, str) else text)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.code == code, (error.code, str(error))
    assert str(error) and error.code != str(error)
    assert everything(game) == before
    return error


def level0(game, player, number):
    """The first legal level-0 placement of ``number`` on ``player``'s display."""
    return game.board(player).legal_placements(number, max_level=0)[0]


def placements_on(game, player, number, level, **rules):
    """The legal placements of ``number`` on exactly ``level``."""
    return [p for p, lv in game.board(player).legal_moves(number, **rules) if lv == level]
