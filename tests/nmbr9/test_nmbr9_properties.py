"""Property tests on positions from random and policy play."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_level

from games.nmbr9 import WINDOW, Board, IllegalPlacement, Placement, deal
from games.nmbr9.policy import choose

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(seed: int, tiles: int, greedy: float) -> tuple[Board, int]:
    """A display of ``tiles`` tiles from the deck of ``seed``, and the next number."""
    cards, _ = deal(seed)
    rng = random.Random(seed)
    board = Board()
    for number in cards[:tiles]:
        if rng.random() < greedy:
            placement = choose(board, number)
        else:
            placement = rng.choice(board.legal_placements(number))
        board.place(placement)
    return board, cards[tiles]


positions = st.builds(
    build,
    seed=st.integers(0, 10**6),
    tiles=st.integers(0, 19),
    greedy=st.sampled_from([0.0, 0.5, 1.0]),
)

placements = st.builds(
    Placement,
    number=st.integers(0, 9),
    x=st.integers(-200, 200),
    y=st.integers(-200, 200),
    rotation=st.integers(0, 3),
)


@SETTINGS
@given(positions)
def test_every_listed_placement_is_legal_and_places(position):
    board, number = position
    moves = board.legal_moves(number)
    assert moves, "there is always a legal placement"
    assert len({p.cells() for p, _ in moves}) == len(moves)
    for placement, level in moves:
        assert placement.number == number
        assert placement.rotation < (2 if number in (0, 8) else 4)
        assert board.level_of(placement) == level
        assert reference_level(board.tiles, placement) == level
    placement, level = moves[len(moves) // 2]
    after = board.copy()
    assert after.place(placement) == level
    assert after.tiles == (*board.tiles, (placement, level))
    assert after.score() == board.score() + number * level


@SETTINGS
@given(positions, st.data())
def test_placements_not_listed_are_refused_and_change_nothing(position, data):
    board, number = position
    listed = {p.cells() for p in board.legal_placements(number)}
    min_x, min_y, max_x, max_y = board.bounds() or (0, 0, 0, 0)
    for _ in range(40):
        placement = Placement(
            number,
            data.draw(st.integers(min_x - 4, max_x + 1)),
            data.draw(st.integers(min_y - 4, max_y + 1)),
            data.draw(st.integers(0, 3)),
        )
        expected = reference_level(board.tiles, placement)
        if any(abs(x) > WINDOW or abs(y) > WINDOW for x, y in placement.cells()):
            expected = "out of range"
        if placement.cells() in listed or not len(board):
            # on an empty display only the orientations at (0, 0) are listed, but any
            # position is fine
            assert board.level_of(placement) == expected
            continue
        assert not isinstance(expected, int)
        before, tiles = board.copy(), board.tiles
        try:
            board.place(placement)
        except IllegalPlacement as error:
            assert error.code in expected
        else:
            raise AssertionError(f"{placement} is not listed but was placed")
        assert board == before and board.tiles == tiles and board.score() == before.score()
        assert not board.is_legal(placement)


@SETTINGS
@given(positions)
def test_score_is_the_sum_of_number_times_level(position):
    board, _ = position
    assert board.score() == sum(p.number * level for p, level in board.tiles)
    assert board.height() == (max((lv for _, lv in board.tiles), default=-1) + 1)
    assert Board(board.notation()) == board
    assert Board.from_placements(board.placements).tiles == board.tiles


@settings(max_examples=300, deadline=None)
@given(placements)
def test_notation_round_trip(placement):
    assert Placement.parse(str(placement)) == placement
    assert eval(repr(placement), {"Placement": Placement}) == placement
    assert len(placement.cells()) == len(placement.offsets())


@settings(max_examples=200, deadline=None)
@given(placements)
def test_window(placement):
    inside = all(abs(x) <= WINDOW and abs(y) <= WINDOW for x, y in placement.cells())
    try:
        level = Board().level_of(placement)
    except IllegalPlacement as error:
        assert not inside and error.code == "out of range"
    else:
        assert inside and level == 0
