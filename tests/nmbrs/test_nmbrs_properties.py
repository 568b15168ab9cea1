"""Property tests on positions from seeded playouts: every policy and random step is
accepted, refused moves leave no trace, replays are identical, views hold no other hand."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.contract import IllegalMove
from games.nmbrs import JOKERS, RULES, Move, Options, Placed, apply
from games.nmbrs.game import plan as plan_of
from games.nmbrs.plays import legal_plays
from games.nmbrs.policy import random_step
from games.nmbrs.preview import own_position, plays, preview
from games.nmbrs.view import view

from .playouts import cards_in, playout, replay

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

options = st.builds(
    Options,
    advanced=st.booleans(),
    simplified=st.booleans(),
    target=st.sampled_from([60, 100]),
)
positions = st.builds(
    lambda players, seed, opts, steps, auto: (
        players,
        seed,
        opts,
        *playout(players, seed, opts, steps=steps, auto=auto),
    ),
    players=st.integers(2, 8),
    seed=st.integers(0, 10**6),
    opts=options,
    steps=st.integers(0, 120),
    auto=st.sampled_from([0.0, 0.5, 1.0]),
)


@SETTINGS
@given(positions, st.integers(0, 10**6))
def test_every_policy_and_random_step_is_accepted(position, salt):
    _, _, _, state, _ = position
    if state.over:
        return
    rng = random.Random(salt)
    for _ in range(30):
        if state.over:
            break
        player = state.to_move
        before = state.dump()
        move = (
            RULES.auto_move(state, player)
            if rng.random() < 0.5
            else random_step(state, player, rng)
        )
        assert Move.parse(str(move)) == move
        apply(state, player, move)
        assert state.dump() != before


@SETTINGS
@given(positions, st.data())
def test_refused_moves_leave_the_state_identical(position, data):
    _, _, _, state, _ = position
    if state.over:
        return
    hand = state.hands[state.current]
    table_numbers = sorted({n for slots in state.table.values() for _, n in slots}) or [1]
    series = st.sampled_from(sorted(state.table) or [1]) | st.integers(1, 9)
    card = st.one_of(
        st.sampled_from([c for c in hand if c not in JOKERS] or ["1"]).map(
            lambda c: Placed.of(int(c))
        ),
        st.integers(1, 100).map(Placed.of),
        st.builds(Placed.of, st.integers(1, 100), st.sampled_from(JOKERS)),
    )
    cards = st.lists(card, min_size=1, max_size=4).map(tuple)
    moves = st.one_of(
        st.sampled_from([Move("take"), Move("pass"), Move("draw"), Move("done")]),
        st.builds(lambda c: Move("lay", cards=c), cards),
        st.builds(lambda s, c: Move("extend", cards=c, series=s), series, cards),
        st.builds(lambda s, c: Move("insert", cards=c, series=s), series, cards),
        st.builds(
            lambda s, at, c: Move("cross", cards=c, series=s, at=at),
            series,
            st.sampled_from(table_numbers),
            cards,
        ),
        st.builds(lambda s, o, c: Move("join", cards=c, series=s, other=o), series, series, cards),
        st.builds(lambda s, n: Move("swap", series=s, card=str(n)), series, st.integers(1, 100)),
        st.builds(lambda c: Move("discard", card=c), st.sampled_from(hand or ["1"])),
    )
    for _ in range(25):
        move = data.draw(moves)
        player = data.draw(st.integers(0, state.players - 1))
        probe = state.copy()
        before = probe.dump()
        try:
            apply(probe, player, move)
        except IllegalMove as error:
            assert error.code and str(error)
            assert probe.dump() == before
        else:
            assert player == state.to_move


@SETTINGS
@given(positions)
def test_a_replay_from_the_seed_and_the_move_texts_is_identical(position):
    players, seed, opts, state, log = position
    assert replay(players, seed, opts, log).dump() == state.dump()


@SETTINGS
@given(positions)
def test_views_never_show_another_hand_or_the_deck(position):
    """The public history aside (it names cards taken from the discard, which the table saw:
    test_nmbrs_platform's history test), no card of the deck or another hand is shown."""
    players, _, _, state, _ = position
    for viewer in [*range(players), None]:
        data = view(state, viewer).to_dict()
        data.pop("log")
        secret = set(state.deck)
        if not state.over:
            for player in range(players):
                if player != viewer:
                    secret |= set(state.hands[player])
        assert cards_in(data) & secret == set()
        if viewer is not None:
            assert {c["card"] for c in data["hand"]} == set(state.hands[viewer])


@SETTINGS
@given(positions)
def test_every_listed_play_is_legal_and_keeps_the_cards_whole(position):
    players, _, _, state, _ = position
    if state.over or state.phase != "play":
        return
    player = state.current
    everything = sorted(
        [c for hand in state.hands for c in hand]
        + state.deck
        + state.pile
        + list({c for slots in state.table.values() for c, _ in slots})
    )
    for plan in legal_plays(state, player)[:20]:
        probe = state.copy()
        apply(probe, player, plan.move)
        if probe.deal == state.deal:
            assert probe.scores[player] == state.scores[player] + plan.points
            after = sorted(
                [c for hand in probe.hands for c in hand]
                + probe.deck
                + probe.pile
                + list({c for slots in probe.table.values() for c, _ in slots})
            )
            assert after == everything
            assert all(len(slots) >= 3 for slots in probe.table.values())


@settings(SETTINGS, max_examples=15)
@given(positions, st.integers(0, 10**6))
def test_the_plays_worked_out_from_a_view_are_the_real_plays(position, salt):
    """A page previews plays from the player's view alone: the same plays, series and
    points as on the real state, and the same refusals."""
    _, _, _, state, _ = position
    rng = random.Random(salt)
    for _ in range(20):
        if state.over:
            return
        player = state.to_move
        if state.phase == "play":
            seen = view(state, player)
            for plan in legal_plays(own_position(seen), player):
                assert plan_of(state, player, plan.move) == plan
            for plan in legal_plays(state, player):
                assert preview(seen, str(plan.move)) == plan
                assert shape(plan) in {shape(p) for p in plays(seen, plan.out)}
            for move in (random_step(state, player, rng) for _ in range(3)):
                if move.is_play:
                    assert preview(seen, move) == plan_or_refusal(state, player, move)
        apply(state, player, random_step(state, player, rng))


def shape(plan):
    """A play as the table sees it: the series it makes and its points (two jokers may
    trade places)."""
    series = tuple((n, None if s is None else tuple(x for _, x in s)) for n, s in plan.changes)
    return plan.move.kind, series, plan.points


def plan_or_refusal(state, player, move):
    try:
        return plan_of(state, player, move)
    except IllegalMove as refused:
        return refused
