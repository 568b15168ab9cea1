"""docs/rules.md §7.1: the deck of 104 cards with our values and colours."""

import json
from collections import Counter
from pathlib import Path

from games.nmbrs.cards import CARDS, COLOURS, JOKERS, deck, value_of

DATA = Path(__file__).parent / "data" / "nmbrs-cards.json"


def test_7_1_the_deck_is_the_one_of_the_rules_data():
    expected = json.loads(DATA.read_text())["cards"]
    ours = [
        {"id": c.id, "number": c.number, "value": c.value, "colour": c.colour}
        | ({"joker": True} if c.joker else {})
        for c in CARDS.values()
    ]
    assert ours == expected


def test_7_1_a_hundred_numbers_and_four_jokers():
    assert len(CARDS) == 104
    assert sorted(c.number for c in CARDS.values() if not c.joker) == list(range(1, 101))
    assert [c.id for c in CARDS.values() if c.joker] == list(JOKERS)
    assert all(CARDS[j].value == 0 and CARDS[j].number is None for j in JOKERS)


def test_7_1_twenty_five_numbers_and_one_joker_per_colour():
    numbers = Counter(c.colour for c in CARDS.values() if not c.joker)
    jokers = Counter(CARDS[j].colour for j in JOKERS)
    assert numbers == dict.fromkeys(COLOURS, 25)
    assert jokers == dict.fromkeys(COLOURS, 1)


def test_7_1_values_follow_how_many_of_2_to_10_divide_the_card():
    for number in range(1, 101):
        divisors = [d for d in range(2, 11) if number % d == 0]
        expected = 3 if not divisors else 2 if len(divisors) == 1 else 1
        assert CARDS[str(number)].value == value_of(number) == expected
    assert (value_of(1), value_of(97), value_of(14), value_of(60)) == (3, 3, 1, 1)


def test_7_2_the_simplified_version_uses_1_to_50_and_the_jokers():
    cards = deck(simplified=True)
    assert len(cards) == 54 and set(cards) == {str(n) for n in range(1, 51)} | set(JOKERS)
    assert len(deck()) == len(set(deck())) == 104
