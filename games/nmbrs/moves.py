"""Moves and their notation (docs/rules.md §7.3): one small frozen dataclass, read and
written as text.

A move is one step of a turn: answering the discard (``take``, ``pass``, ``draw``), one play
(``lay``, ``extend``, ``insert``, ``cross``, ``join``, ``swap``) or the end of the turn
(``discard``, ``done``). Cards are written by number (``42``); a joker put on the table says
which number it stands for (``JR=42``). ``str(move)`` is canonical: cards in ascending order,
joined series in ascending order, single spaces. ``Move.parse(str(move)) == move`` always.

>>> move = Move.parse("lay 16, JR=14 ,12")
>>> str(move)
'lay 12,JR=14,16'
>>> Move.parse(str(move)) == move
True
>>> str(Move.parse("join 5+3: 22"))
'join 3+5: 22'
>>> Move.parse("lay JR,14,16")
Traceback (most recent call last):
    ...
games.contract.InvalidMove: say which number the joker JR stands for, e.g. JR=14
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.contract import InvalidMove

from .cards import JOKERS

__all__ = ["KINDS", "PLAYS", "InvalidMove", "Move", "Placed"]

#: Moves that put cards on the table.
PLAYS = ("lay", "extend", "insert", "cross", "join", "swap")
#: Every kind of move.
KINDS = ("take", "pass", "draw", *PLAYS, "discard", "done")
_BARE = ("take", "pass", "draw", "done")
_MAX_NUMBER = 100


def _invalid(reason: str, code: str, **params: object) -> InvalidMove:
    return InvalidMove(reason, code=code, **params)


@dataclass(frozen=True, slots=True, order=True)
class Placed:
    """A card as it goes on the table: its id and the number it stands for.

    A number card stands for its own number; a joker for the number it is given.

    >>> Placed.parse("JO=7")
    Placed(number=7, card='JO')
    >>> str(Placed.parse("42")), Placed.parse("42").joker
    ('42', False)
    """

    number: int
    card: str

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int):
            raise _invalid(f"a card number must be a whole number, not {self.number!r}", "number")
        if not 1 <= self.number <= _MAX_NUMBER:
            raise _invalid(
                f"there is no card {self.number}: numbers go from 1 to {_MAX_NUMBER}",
                "no-such-number",
                number=self.number,
            )
        if self.card in JOKERS:
            return
        if self.card != str(self.number):
            raise _invalid(f"card {self.card!r} cannot stand for {self.number}", "no-such-card")

    @property
    def joker(self) -> bool:
        return self.card in JOKERS

    @classmethod
    def of(cls, number: int, joker: str | None = None) -> Placed:
        """The number card ``number``, or ``joker`` standing for ``number``."""
        return cls(number, joker or str(number))

    @classmethod
    def parse(cls, text: str) -> Placed:
        token = text.strip().upper()
        joker, sep, number = token.partition("=")
        if sep:
            if joker not in JOKERS:
                raise _invalid(
                    f"there is no joker {joker!r} (jokers: JR JG JB JO)", "no-such-joker"
                )
            return cls(_number(number), joker)
        if token in JOKERS:
            raise _invalid(
                f"say which number the joker {token} stands for, e.g. {token}=14",
                "joker-without-number",
                joker=token,
            )
        value = _number(token)
        return cls(value, str(value))

    def __str__(self) -> str:
        return f"{self.card}={self.number}" if self.joker else self.card


def _number(text: str) -> int:
    text = text.strip()
    if not re.fullmatch(r"\d{1,3}", text, re.ASCII):
        raise _invalid(f"not a card number: {text!r}", "not-a-number", text=text)
    number = int(text)
    if not 1 <= number <= _MAX_NUMBER:
        raise _invalid(
            f"there is no card {number}: numbers go from 1 to {_MAX_NUMBER}",
            "no-such-number",
            number=number,
        )
    return number


def _cards(text: str) -> tuple[Placed, ...]:
    parts = [part for part in text.split(",")]
    if not text.strip() or any(not part.strip() for part in parts):
        raise _invalid(f"expected cards separated by commas, not {text.strip()!r}", "no-cards")
    return tuple(Placed.parse(part) for part in parts)


def _series_number(text: str) -> int:
    text = text.strip()
    if not re.fullmatch(r"\d{1,4}", text, re.ASCII) or int(text) < 1:
        raise _invalid(f"not a series number: {text!r}", "not-a-series-number", text=text)
    return int(text)


_HEAD = re.compile(r"\s*([A-Za-z]+)\s*(.*?)\s*", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Move:
    """One step of a turn.

    ``cards`` are the cards a play puts on the table; ``series`` the series it changes (or
    crosses, or the first of two it joins); ``other`` the second series of a join; ``at`` the
    number of the table card a cross goes through; ``card`` the card discarded or swapped
    in. The fields a kind does not use are None or empty.

    >>> Move.parse("cross 3@14: 21,7")
    Move(kind='cross', cards=(Placed(number=7, card='7'), Placed(number=21, card='21')), \
series=3, other=None, at=14, card=None)
    >>> str(Move("swap", series=4, card="42")), str(Move("discard", card="JG"))
    ('swap 4: 42', 'discard JG')
    >>> Move("extend", series=2)
    Traceback (most recent call last):
        ...
    games.contract.InvalidMove: extend needs at least one card
    """

    kind: str
    cards: tuple[Placed, ...] = ()
    series: int | None = None
    other: int | None = None
    at: int | None = None
    card: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise _invalid(f"unknown move {self.kind!r}", "unknown-move", kind=self.kind)
        cards = tuple(self.cards)
        if not all(isinstance(c, Placed) for c in cards):
            raise _invalid("cards must be Placed cards", "no-cards")
        uses = {
            "cards": self.kind in PLAYS and self.kind != "swap",
            "series": self.kind in PLAYS and self.kind != "lay",
            "other": self.kind == "join",
            "at": self.kind == "cross",
            "card": self.kind in ("swap", "discard"),
        }
        for name, used in uses.items():
            value = getattr(self, name)
            if used and (value is None or value == ()):
                raise _invalid(f"{self.kind} needs {_NEEDS[name]}", "incomplete", kind=self.kind)
            if not used and value not in (None, ()):
                raise _invalid(f"{self.kind} takes no {name}", "incomplete", kind=self.kind)
        for name in ("series", "other", "at"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise _invalid(f"{name} must be a whole number >= 1, not {value!r}", "incomplete")
        if self.card is not None:
            card = str(self.card).upper()
            if card not in JOKERS:
                card = str(_number(card))
            elif self.kind == "swap":
                raise _invalid(
                    "swap names the number card that replaces a joker", "swap-needs-number"
                )
            object.__setattr__(self, "card", card)
        object.__setattr__(self, "cards", tuple(sorted(cards)))
        series, other = self.series, self.other
        if self.kind == "join" and series is not None and other is not None and series > other:
            object.__setattr__(self, "series", other)
            object.__setattr__(self, "other", series)

    @classmethod
    def parse(cls, text: str) -> Move:
        """The move written ``text`` (section 7.3); InvalidMove if it is not one."""
        if not isinstance(text, str):
            raise _invalid(f"a move is written as text, not {text!r}", "not-text")
        match = _HEAD.fullmatch(text)
        if match is None:
            raise _invalid(f"not a move: {text!r}", "not-a-move", text=text)
        kind, rest = match.group(1).lower(), match.group(2)
        if kind not in KINDS:
            raise _invalid(f"unknown move {kind!r}", "unknown-move", kind=kind)
        if kind in _BARE:
            if rest:
                raise _invalid(f"{kind} takes nothing after it", "not-a-move", text=text)
            return cls(kind)
        if kind == "discard":
            if "=" in rest:
                raise _invalid(
                    "a discarded joker stands for nothing: write e.g. discard JR", "not-a-move"
                )
            return cls(kind, card=rest)
        if kind == "lay":
            return cls(kind, cards=_cards(rest))
        head, sep, cards = rest.partition(":")
        if not sep:
            raise _invalid(f"{kind} needs a series and a colon, e.g. {_EXAMPLES[kind]}", "colon")
        if kind == "swap":
            return cls(kind, series=_series_number(head), card=str(_number(cards)))
        if kind == "cross":
            series, at_sign, at = head.partition("@")
            if not at_sign:
                raise _invalid(f"cross names the card it goes through: {_EXAMPLES[kind]}", "at")
            return cls(kind, cards=_cards(cards), series=_series_number(series), at=_number(at))
        if kind == "join":
            first, plus, second = head.partition("+")
            if not plus:
                raise _invalid(f"join names two series: {_EXAMPLES[kind]}", "plus")
            return cls(
                kind,
                cards=_cards(cards),
                series=_series_number(first),
                other=_series_number(second),
            )
        return cls(kind, cards=_cards(cards), series=_series_number(head))

    @property
    def is_play(self) -> bool:
        return self.kind in PLAYS

    def __str__(self) -> str:
        cards = ",".join(str(c) for c in self.cards)
        match self.kind:
            case "lay":
                return f"lay {cards}"
            case "extend" | "insert":
                return f"{self.kind} {self.series}: {cards}"
            case "cross":
                return f"cross {self.series}@{self.at}: {cards}"
            case "join":
                return f"join {self.series}+{self.other}: {cards}"
            case "swap":
                return f"swap {self.series}: {self.card}"
            case "discard":
                return f"discard {self.card}"
        return self.kind


_NEEDS = {
    "cards": "at least one card",
    "series": "a series number",
    "other": "a second series",
    "at": "the number of the card it crosses",
    "card": "a card",
}

_EXAMPLES = {
    "extend": "extend 3: 18,20",
    "insert": "insert 3: 13,15",
    "cross": "cross 3@14: 7,21",
    "join": "join 3+5: 22",
    "swap": "swap 4: 42",
}
