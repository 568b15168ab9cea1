"""What a spectator (``view(state, None)``) may know of a running match: the table, the
discard, the deck's size, every hand's size, the scores and the public history; never a card
of a hand or of the deck, checked against matches that differ only in those."""

import random

import pytest

from games.nmbrs import RULES, Options, apply, setup
from games.nmbrs.policy import random_step
from games.nmbrs.view import view

from .playouts import cards_in


def redealt(state, rng: random.Random):
    """``state`` with every hand and the deck dealt afresh from the cards they hold between
    them (each hand keeping its size, and a joker owed after a swap kept by its player)."""
    other = state.copy()
    kept = [
        [state.owed] if player == state.current and state.owed in state.hands[player] else []
        for player in range(state.players)
    ]
    pool = list(state.deck)
    for player, hand in enumerate(state.hands):
        pool.extend(card for card in hand if card not in kept[player])
    rng.shuffle(pool)
    for player, hand in enumerate(state.hands):
        size = len(hand) - len(kept[player])
        other.hands[player] = kept[player] + pool[:size]
        del pool[:size]
    other.deck = pool
    return other


@pytest.mark.parametrize("options", [Options(), Options(simplified=True)])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_spectator_sees_the_same_whatever_the_hands_and_the_deck_hold(options, seed):
    state = setup(3, seed, options)
    rng = random.Random(seed)
    checked = 0
    for step in range(400):
        if state.over:
            break
        player = state.to_move
        move = RULES.auto_move(state, player) if rng.random() < 0.5 else None
        apply(state, player, move or random_step(state, player, rng))
        if step % 7:
            continue
        seen = view(state, None).to_dict()
        assert seen["hand"] is None and seen["final_hands"] is None
        assert seen["hand_sizes"] == [len(hand) for hand in state.hands]
        assert seen["deck_size"] == len(state.deck)
        secret = set(state.deck).union(*state.hands)
        assert cards_in({k: v for k, v in seen.items() if k != "log"}) & secret == set()
        for again in range(3):
            other = redealt(state, random.Random(again))
            assert other.hands != state.hands or other.deck != state.deck
            assert view(other, None).to_dict() == seen
        checked += 1
    assert checked >= 10
