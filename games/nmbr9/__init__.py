"""NMBR 9 rules engine: tiles, placements, boards, games and a fallback policy."""

from .board import Board, IllegalPlacement
from .placement import InvalidPlacement, Placement
from .tiles import SHAPES

__all__ = ["SHAPES", "Board", "IllegalPlacement", "InvalidPlacement", "Placement"]
