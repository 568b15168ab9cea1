"""The nmbrs! deck: 100 number cards and 4 jokers, each with a colour and a value.

The printed values and colours are not in the rule text; these are the platform's own
(docs/rules.md §7.1): a card's value is 3 when no number 2-10 divides it, 2 when exactly one does
and 1 otherwise (an easy card is worth little); jokers are worth 0. The colours are a fixed
shuffle with 25 numbers and one joker per colour.

A card is named by its id: the number as text (``"42"``) or a joker's id (``"JR"``).

>>> CARDS["42"]
Card(id='42', number=42, colour='orange', value=1)
>>> CARDS["97"].value, CARDS["JB"].colour, CARDS["JB"].joker
(3, 'blue', True)
>>> len(deck()), len(deck(simplified=True))
(104, 54)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CARDS",
    "COLOURS",
    "JOKERS",
    "Card",
    "deck",
    "highest_number",
    "value_of",
]

COLOURS = ("red", "green", "blue", "orange")

#: The colour of the numbers 1-100 in order, by first letter.
_NUMBER_COLOURS = (
    "bbggobrgrrrrgrbgooggobgbr"  # 1-25
    "orrrgbbbogboogrrorgogbrgr"  # 26-50
    "ggrogoorobbogbbooggbrbgrb"  # 51-75
    "bobogobbrrgrorrrggobboboo"  # 76-100
)

#: Joker ids, one per colour.
JOKERS = ("JR", "JG", "JB", "JO")


def value_of(number: int) -> int:
    """The value printed on card ``number``: 3, 2 or 1 as 0, 1 or more of 2-10 divide it.

    >>> value_of(97), value_of(49), value_of(60)
    (3, 2, 1)
    """
    divisors = sum(1 for d in range(2, 11) if number % d == 0)
    return 3 if divisors == 0 else 2 if divisors == 1 else 1


@dataclass(frozen=True, slots=True)
class Card:
    """One card. ``number`` is None for a joker, which stands for any number it is given.

    >>> Card.get("JO")
    Card(id='JO', number=None, colour='orange', value=0)
    >>> Card.get("7").value
    2
    """

    id: str
    number: int | None
    colour: str
    value: int

    @property
    def joker(self) -> bool:
        return self.number is None

    @staticmethod
    def get(card_id: str) -> Card:
        """The card called ``card_id``; KeyError if there is none."""
        return CARDS[card_id]


def _build() -> dict[str, Card]:
    by_letter = {colour[0]: colour for colour in COLOURS}
    cards = {
        str(n): Card(str(n), n, by_letter[_NUMBER_COLOURS[n - 1]], value_of(n))
        for n in range(1, 101)
    }
    for joker in JOKERS:
        cards[joker] = Card(joker, None, by_letter[joker[1].lower()], 0)
    return cards


#: Every card by its id: "1" .. "100", then the jokers.
CARDS: dict[str, Card] = _build()


def highest_number(simplified: bool = False) -> int:
    """The highest number in play: 100, or 50 in the simplified version."""
    return 50 if simplified else 100


def deck(simplified: bool = False) -> tuple[str, ...]:
    """The ids of the cards a deal uses, in order: the numbers, then the jokers."""
    return (*(str(n) for n in range(1, highest_number(simplified) + 1)), *JOKERS)
