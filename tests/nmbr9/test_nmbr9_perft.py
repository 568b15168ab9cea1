import json
from collections import Counter
from pathlib import Path

import pytest

from games.nmbr9 import Board, Placement

POSITIONS = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())["positions"]


@pytest.mark.parametrize("position", POSITIONS, ids=lambda p: f"{len(p['placements'])}:{p['next']}")
def test_perft_position(position):
    board = Board.from_placements(Placement(*p) for p in position["placements"])
    assert board.score() == position["score"]
    moves = board.legal_moves(position["next"])
    assert len(moves) == position["legal"]
    by_level = Counter(str(level) for _, level in moves)
    assert dict(by_level) == position["legal_by_level"]
    assert len({p.cells() for p, _ in moves}) == len(moves)
    assert board.legal_placements(position["next"]) == [p for p, _ in moves]


def test_perft_levels_agree_with_level_of(perft_positions):
    for position in perft_positions[::7]:
        board = Board.from_placements(Placement(*p) for p in position["placements"])
        for placement, level in board.legal_moves(position["next"]):
            assert board.level_of(placement) == level
