"""How a game is set up: the options (NMBR 9 ++ modules, variant, card removal), the decks,
the deal a seed makes, and ``GameError``, the game's refusals.

>>> deal_game(7, 2, Options(variant="two_of_three")).cards[:5]
(7, 1, 5, 9, 2)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.contract import IllegalMove

from .tiles import START_TILES
from .turn import SPECIALS

__all__ = [
    "CARDS",
    "DECKS",
    "MAX_PLAYERS",
    "MAX_REMOVED",
    "MAX_VARIANT_PLAYERS",
    "PACES",
    "RANDOM_SPECIALS",
    "TOP_LEVEL",
    "VARIANTS",
    "Deal",
    "GameError",
    "Options",
    "check_deal",
    "check_removed",
    "check_seed",
    "deal",
    "deal_game",
]

#: The deck: two cards of each number.
CARDS: tuple[int, ...] = tuple(n for n in range(10) for _ in range(2))
#: The deck of each variant: "2 of 3" three of each number, "level to level" four.
DECKS: Mapping[str, tuple[int, ...]] = {
    "base": CARDS,
    "two_of_three": tuple(n for n in range(10) for _ in range(3)),
    "level_to_level": tuple(n for n in range(10) for _ in range(4)),
}
MAX_PLAYERS = 6
#: The variants allow at most this many players.
MAX_VARIANT_PLAYERS = 4
MAX_REMOVED = 4
PACES = ("rounds", "free")
VARIANTS = ("base", "two_of_three", "level_to_level")
#: "level to level": the highest level anything may lie on (nothing on level 5).
TOP_LEVEL = 4
#: "breaking rules": the creator's alternative to naming the special tiles.
RANDOM_SPECIALS = "random2"


class GameError(IllegalMove):
    """A move or argument the game cannot accept (not this player's turn, game over, a rule
    of a turn broken, ...). ``code`` names the reason, ``params`` fill it in."""

    def __init__(self, reason: str, *, code: str = "", **params: Any) -> None:
        super().__init__(reason, code=code or reason, **params)


def check_seed(seed: object) -> int | str:
    """``seed`` if it is one (a whole number or text); GameError otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise GameError(f"seed must be a whole number or text, not {seed!r}", code="bad seed")
    return seed


def check_removed(removed: object) -> int | str:
    """``removed`` if it is a number of cards to remove or "random"; GameError otherwise."""
    if removed == "random" and isinstance(removed, str):
        return removed
    message = f'removed must be 0-{MAX_REMOVED} or "random", not {removed!r}'
    if isinstance(removed, bool) or not isinstance(removed, int):
        raise GameError(message, code="bad removed")
    if not 0 <= removed <= MAX_REMOVED:
        raise GameError(message.replace(repr(removed), str(removed)), code="bad removed")
    return removed


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise GameError(f"{name} must be True or False, not {value!r}", code="bad option")
    return value


def _check_specials(specials: object) -> tuple[str, ...]:
    if specials == RANDOM_SPECIALS:
        return (RANDOM_SPECIALS,)
    if isinstance(specials, str) or not isinstance(specials, Sequence | frozenset | set):
        raise GameError(
            f'specials must be a list of special tiles or "{RANDOM_SPECIALS}", not {specials!r}',
            code="bad option",
        )
    names = list(specials)
    if names == [RANDOM_SPECIALS]:
        return (RANDOM_SPECIALS,)
    for name in names:
        if name not in SPECIALS:
            raise GameError(
                f"unknown special tile {name!r} (the six are {', '.join(SPECIALS)}, or "
                f'"{RANDOM_SPECIALS}" for two of them drawn from the seed)',
                code="bad option",
            )
    if len(set(names)) != len(names):
        raise GameError("each special tile can be named once", code="bad option")
    return tuple(name for name in SPECIALS if name in names)


def deal(seed: int | str, removed: int | str = 0) -> tuple[tuple[int, ...], int]:
    """The cards revealed in order, and how many were removed unseen (base game).

    The 20 cards are shuffled with ``random.Random(seed)``; ``removed`` cards ("random":
    0-4 drawn from the same generator after the shuffle) are taken off the end of the deck.

    >>> cards, removed = deal(7)
    >>> len(cards), removed, sorted(cards) == sorted(CARDS)
    (20, 0, True)
    >>> len(deal(7, removed=3)[0])
    17
    """
    seed = check_seed(seed)
    removed = check_removed(removed)
    rng = random.Random(seed)
    cards = list(CARDS)
    rng.shuffle(cards)
    count = rng.randrange(MAX_REMOVED + 1) if removed == "random" else int(removed)
    return tuple(cards[: len(cards) - count]), count


@dataclass(frozen=True, slots=True)
class Options:
    """What is played besides the base game (docs/rules.md §6): modules, variant, card removal.

    ``specials``: the special tiles in play (module "breaking rules"), or ``"random2"`` for
    two of the six drawn from the seed. ``variant``: "base", "two_of_three" or
    "level_to_level". ``removed``: cards removed unseen (0-4 or "random", base variant only).

    >>> Options(fillers=True, specials=("one", "move"))
    Options(start_tiles=False, fillers=True, specials=('move', 'one'), variant='base', removed=0)
    >>> Options(specials="random2").specials
    ('random2',)
    >>> Options(variant="two_of_three", removed=2)
    Traceback (most recent call last):
        ...
    games.nmbr9.setup.GameError: cards are removed only in the base game, not in two_of_three
    """

    start_tiles: bool = False
    fillers: bool = False
    specials: tuple[str, ...] = ()
    variant: str = "base"
    removed: int | str = 0

    def __post_init__(self) -> None:
        _check_bool("start_tiles", self.start_tiles)
        _check_bool("fillers", self.fillers)
        object.__setattr__(self, "specials", _check_specials(self.specials))
        if self.variant not in VARIANTS:
            raise GameError(
                f"variant must be one of {', '.join(VARIANTS)}, not {self.variant!r}",
                code="bad option",
            )
        check_removed(self.removed)
        if self.variant != "base" and self.removed != 0:
            raise GameError(
                f"cards are removed only in the base game, not in {self.variant}",
                code="bad option",
            )

    @property
    def plusplus(self) -> bool:
        """Whether anything of NMBR 9 ++ is played (a module or a variant)."""
        return self.start_tiles or self.fillers or bool(self.specials) or self.variant != "base"

    @property
    def steps_per_round(self) -> int:
        """Cards each player deals with in a round: 3 in "2 of 3", else 1.

        >>> Options(variant="two_of_three").steps_per_round, Options().steps_per_round
        (3, 1)
        """
        return 3 if self.variant == "two_of_three" else 1

    @property
    def markers(self) -> int:
        """Markers per player for the special tiles (3 in "2 of 3", none without them)."""
        if not self.specials:
            return 0
        return 3 if self.variant == "two_of_three" else 2

    def check(self, players: int, pace: str) -> None:
        """GameError if these options cannot be played by ``players`` at ``pace``."""
        if self.variant != "base" and players > MAX_VARIANT_PLAYERS:
            raise GameError(
                f"the variant {self.variant} is for 1-{MAX_VARIANT_PLAYERS} players, not {players}",
                code="bad option",
            )
        if self.variant == "level_to_level" and pace != "rounds":
            raise GameError(
                'the variant level_to_level is played in "rounds" pace only: which cards a '
                "round shows depends on every player's display",
                code="bad option",
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "start_tiles": self.start_tiles,
            "fillers": self.fillers,
            "specials": list(self.specials),
            "variant": self.variant,
            "removed": self.removed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        known = {"start_tiles", "fillers", "specials", "variant", "removed"}
        unknown = set(data) - known
        if unknown:
            raise GameError(f"unknown option {sorted(unknown)[0]!r}", code="bad option")
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Deal:
    """Everything a game's seed decides: the cards in the order they are revealed (without
    the removed ones), how many were removed unseen, each player's start tile and the special
    tiles in play. A game can also be set up from an explicit deal (puzzles, bots).

    >>> from games.nmbr9 import Game
    >>> game = Game(1, seed=None, deal=Deal(cards=(*range(10), *range(10))))
    >>> game.current_number(0), game.seed
    (0, None)
    """

    cards: tuple[int, ...]
    removed: int = 0
    start_tiles: tuple[str, ...] = ()
    specials: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "removed": self.removed,
            "start_tiles": list(self.start_tiles),
            "specials": list(self.specials),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Deal:
        return cls(
            cards=tuple(data["cards"]),
            removed=int(data.get("removed", 0)),
            start_tiles=tuple(data.get("start_tiles", ())),
            specials=tuple(data.get("specials", ())),
        )


def deal_game(seed: int | str, players: int, options: Options) -> Deal:
    """The deal of ``seed``: the base game's cards as ``deal`` shuffles them (the variants'
    decks with the same generator), then start tiles and random special tiles each from a
    generator of their own, so that adding a module does not change the cards.

    >>> d = deal_game(7, 3, Options(start_tiles=True, specials="random2"))
    >>> d.cards == deal(7)[0], len(set(d.start_tiles)), len(d.specials)
    (True, 3, 2)
    """
    seed = check_seed(seed)
    if options.variant == "base":
        cards, removed = deal(seed, options.removed)
    else:
        shuffled = list(DECKS[options.variant])
        random.Random(seed).shuffle(shuffled)
        cards, removed = tuple(shuffled), 0
    start_tiles: tuple[str, ...] = ()
    if options.start_tiles:
        start_tiles = tuple(random.Random(f"start-tiles:{seed}").sample(START_TILES, players))
    specials = options.specials
    if specials == (RANDOM_SPECIALS,):
        drawn = random.Random(f"specials:{seed}").sample(SPECIALS, 2)
        specials = tuple(name for name in SPECIALS if name in drawn)
    return Deal(cards, removed, start_tiles, specials)


def check_deal(deal_: object, players: int, options: Options) -> Deal:
    """``deal_`` if it is a deal that fits ``options`` and ``players``; GameError otherwise."""
    if not isinstance(deal_, Deal):
        raise GameError(f"deal must be a Deal, not {deal_!r}", code="bad deal")
    deck = Counter(DECKS[options.variant])
    cards = deal_.cards
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in cards):
        raise GameError("the cards of a deal are numbers 0-9", code="bad deal")
    if Counter(cards) - deck:
        raise GameError(
            f"the cards of a deal come from the {options.variant} deck", code="bad deal"
        )
    if options.variant == "base":
        if len(cards) + deal_.removed != len(CARDS) or not 0 <= deal_.removed <= MAX_REMOVED:
            raise GameError("a base deal has 20 cards, 0-4 of them removed", code="bad deal")
    elif len(cards) != len(DECKS[options.variant]) or deal_.removed:
        raise GameError(f"a {options.variant} deal has the whole deck", code="bad deal")
    if options.start_tiles:
        if len(deal_.start_tiles) != players or len(set(deal_.start_tiles)) != players:
            raise GameError("a deal gives each player a different start tile", code="bad deal")
        if not set(deal_.start_tiles) <= set(START_TILES):
            raise GameError("start tiles are S1-S6", code="bad deal")
    elif deal_.start_tiles:
        raise GameError("start tiles are not in this game", code="bad deal")
    specials = deal_.specials
    if options.specials == (RANDOM_SPECIALS,):
        if len(specials) != 2 or _check_specials(specials) != specials:
            raise GameError("two special tiles are drawn", code="bad deal")
    elif specials != options.specials:
        raise GameError("the deal's special tiles are the options' ones", code="bad deal")
    return deal_
