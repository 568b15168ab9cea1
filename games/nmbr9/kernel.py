"""The compiled kernel: move generation and the policy's valuation in C.

``games/nmbr9/_kernel.c`` is built by the package's own build step (``pip install -e .``,
which ``./run`` does) with the system C compiler. It makes the same choices as the pure-Python
engine, which stays the reference: the same placements in the same order and the same values,
computed with the same floating-point operations in the same order, so a bot's game on a seed
is the same with or without it (tests/nmbr9/test_nmbr9_kernel.py checks that on every perft
position and on whole games).

``KERNEL`` is the loaded module, or None: when it is not built, or when the environment sets
``NMBR9_PURE_PYTHON=1``. ``pure_python()`` turns it off for a while (for tests and benchmarks).
The kernel handles the plain rules and the relaxations "one" and "loose" on displays of up to
16 levels; anything else (and any call it cannot answer, which returns None) runs the Python
code.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from .tiles import ORIENTATIONS, ROTATIONS_OF, VALUES

__all__ = ["KERNEL", "built", "pure_python"]


def built() -> ModuleType | None:
    """The compiled module, set up, or None if it was not built."""
    try:
        from . import _kernel  # type: ignore[attr-defined]
    except ImportError:
        return None
    _kernel.setup(ORIENTATIONS, ROTATIONS_OF, VALUES)
    return _kernel


def _load() -> ModuleType | None:
    if os.environ.get("NMBR9_PURE_PYTHON", "") not in ("", "0"):
        return None
    return built()


#: The kernel in use, or None (pure Python).
KERNEL: ModuleType | None = _load()


@contextmanager
def pure_python() -> Iterator[None]:
    """Run the pure-Python engine inside the ``with`` block."""
    global KERNEL
    saved, KERNEL = KERNEL, None
    try:
        yield
    finally:
        KERNEL = saved
