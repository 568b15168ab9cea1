"""games/web/nmbr9: a preview's query and a move's form read the same with or without the
forms' work (plain placements skip the forms; everything else, and every error, goes
through them)."""

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from hypothesis import given
from hypothesis import strategies as st

from games.nmbr9 import Board, Placement
from games.web.nmbr9.adapter import Nmbr9Web
from games.web.nmbr9.compose import default_ghost
from games.web.nmbr9.forms import TurnForm

WEB = Nmbr9Web()
#: Unknown to the forms (they ignore it), so it sends a request down their path.
THROUGH_FORMS = ("note", "1")

#: Around every field's bounds (0-3, 0-9, +-99, 0-100000), and text that is no number.
NUMBERS = st.one_of(
    st.integers(-2, 11).map(str),
    st.sampled_from(["-100", "-99", "99", "100", "100000", "100001"]),
    st.sampled_from(["", " 7", "7 ", "+3", "-0", "²", "⑨", "1.5", "0x1", "abc"]),
)


def _answer(call, pairs):
    try:
        return call(QueryDict(urlencode(pairs)))
    except ValueError as exc:
        return ("refused", str(exc))


def _both(call, pairs):
    return _answer(call, pairs), _answer(call, [*pairs, THROUGH_FORMS])


@given(x=NUMBERS, y=NUMBERS, rotation=NUMBERS, number=NUMBERS, ply=NUMBERS)
def test_a_move_reads_the_same_either_way(x, y, rotation, number, ply):
    pairs = [("csrfmiddlewaretoken", "t"), ("number", number), ("x", x), ("y", y)]
    pairs += [("rotation", rotation), ("ply", ply)]
    quick, forms = _both(WEB.move, pairs)
    assert quick == forms


VALID = {"number": "5", "x": "1", "y": "-2", "rotation": "3", "ply": "12"}
EDGES = ["-101", "-100", "-99", "-1", "0", "3", "4", "9", "10", "99", "100", "100000", "100001"]
ODD = ["", " 7", "7 ", "+3", "-0", "²", "⑨", "1.5", "0x1", "abc"]


@pytest.mark.parametrize("field", sorted(VALID))
@pytest.mark.parametrize("value", EDGES + ODD)
def test_each_field_reads_the_same_either_way(field, value):
    pairs = [("csrfmiddlewaretoken", "t"), *{**VALID, field: value}.items()]
    quick, forms = _both(WEB.move, pairs)
    assert quick == forms
    if field in ("x", "y", "rotation"):
        shown = [(name, v) for name, v in pairs if name in ("x", "y", "rotation")]
        quick, forms = _both(WEB.read_query, shown)
        assert quick == forms


@given(x=NUMBERS, y=NUMBERS, rotation=NUMBERS)
def test_a_preview_reads_the_same_either_way(x, y, rotation):
    quick, forms = _both(WEB.read_query, [("x", x), ("y", y), ("rotation", rotation)])
    assert quick == forms


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([("number", "5"), ("x", "1"), ("y", "-2"), ("rotation", "3"), ("ply", "12")], 12),
        ([("x", "0"), ("y", "0"), ("rotation", "0"), ("ply", "0"), ("number", "0")], 0),
    ],
)
def test_a_plain_move_skips_the_forms(monkeypatch, pairs, expected):
    text, ply = WEB.move(QueryDict(urlencode(pairs)))
    assert ply == expected and text.startswith("place ")

    def refuse(*args, **kwargs):
        raise AssertionError("a form was made")

    monkeypatch.setattr(TurnForm, "__init__", refuse)
    assert WEB.move(QueryDict(urlencode(pairs))) == (text, ply)
    assert WEB.read_query(QueryDict("x=1&y=2&rotation=0"))["at"] == (1, 2, 0)


@pytest.mark.parametrize(
    "pairs",
    [
        [("number", "5"), ("x", "1"), ("y", "2"), ("rotation", "0"), ("ply", "3"), ("piece", "F1")],
        [("number", "5"), ("x", "1"), ("y", "2"), ("rotation", "0"), ("ply", "3"), ("turn", "x")],
        [("number", "5"), ("x", "1"), ("y", "2"), ("rotation", "9"), ("ply", "3")],
        [("x", "1"), ("y", "2"), ("rotation", "0"), ("ply", "3")],
    ],
)
def test_anything_but_a_plain_move_goes_through_the_forms(monkeypatch, pairs):
    made = []
    real = TurnForm.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(TurnForm, "__init__", counted)
    _answer(WEB.move, pairs)
    assert made


def test_the_default_spot_is_the_legal_one_nearest_the_middle():
    """A tile's default spot: of its legal placements the nearest to the middle of the
    display's squares, the first in notation order among equally near ones."""
    data = Path(__file__).parent / "data" / "perft.json"
    for position in json.loads(data.read_text())["positions"]:
        board = Board.from_placements(Placement(*p) for p in position["placements"])
        cells = [c for p, _ in board.tiles for c in p.cells()] or [(0, 0)]
        cx, cy = sum(x for x, _ in cells) / len(cells), sum(y for _, y in cells) / len(cells)
        for piece, rules in [(position["next"], {}), (6, {"max_level": 0}), ("F1", {})]:
            legal = board.legal_placements(piece, **rules)
            ranked = sorted(legal, key=lambda p: ((p.x - cx) ** 2 + (p.y - cy) ** 2, str(p)))
            ghost = default_ghost(board, piece, max_level=rules.get("max_level"))
            assert ghost == ranked[0], (board.notation(), piece)
