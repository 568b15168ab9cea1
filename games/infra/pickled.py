"""A game's state kept as bytes (``Rules.save`` and ``Rules.restore``): pickled, and read back
by an unpickler that builds nothing but the game's own classes and a few plain containers.

The platform keeps each match's state beside its moves, so that nothing has to replay a match
to show or change it. The bytes are only ever read back by the code that wrote them: the
format (``fingerprint``) is a digest of the game package's source, so a state written before
the game's code changed is not read (the platform rebuilds it from the moves), and a damaged
one, or one naming any class outside the game, is refused with a ValueError instead of being
built (the unpickler resolves no other name: no function, no module of the standard library).

Plain Python, no Django: the rules engines use it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import pickle
from pathlib import Path
from typing import Any

__all__ = ["dumps", "fingerprint", "loads"]

#: Classes of the standard library a game's state may hold, besides its own.
_PLAIN = {("collections", "Counter"), ("collections", "OrderedDict"), ("builtins", "frozenset")}
#: Changes when this module writes states differently.
_VERSION = "1"


def fingerprint(package: str | Path) -> str:
    """A short digest of a game package's source (every ``.py`` and ``.c`` file in the
    folder ``package``, by name and content): the format of the states its code writes."""
    folder = Path(package)
    digest = hashlib.sha256(_VERSION.encode())
    for path in sorted([*folder.glob("*.py"), *folder.glob("*.c")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


_fields: dict[type, tuple[str, ...] | None] = {}


def _slotted_fields(kind: type) -> tuple[str, ...] | None:
    """The fields of a dataclass with slots (None for any other class), in order."""
    names = _fields.get(kind, ())
    if names == ():
        slotted = dataclasses.is_dataclass(kind) and "__slots__" in vars(kind)
        names = tuple(f.name for f in dataclasses.fields(kind)) if slotted else None
        _fields[kind] = names
    return names


def frozen(kind: type, values: tuple) -> Any:
    """An instance of the dataclass ``kind`` with the fields ``values``, as ``dumps`` wrote
    it (without calling its ``__init__``: frozen ones too)."""
    names = _slotted_fields(kind)
    if names is None or len(names) != len(values):
        raise pickle.UnpicklingError(f"{kind.__name__} is not the dataclass it was")
    made: Any = object.__new__(kind)
    for name, value in zip(names, values, strict=True):
        object.__setattr__(made, name, value)
    return made


class _Pickler(pickle.Pickler):
    """Dataclasses with slots (most of a game's small values) as their class and a tuple of
    their fields (``frozen``): faster to write and read than through their own
    ``__getstate__`` and ``__setstate__``, which look their fields up every time."""

    def reducer_override(self, obj: Any) -> Any:
        names = _slotted_fields(type(obj))
        if names is None:
            return NotImplemented
        return frozen, (type(obj), tuple([getattr(obj, name) for name in names]))


def dumps(state: Any) -> bytes:
    """The state as bytes."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
    return out.getvalue()


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, package: str) -> None:
        super().__init__(io.BytesIO(data))
        self.package = package

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "frozen"):
            return frozen  # builds only the classes this unpickler allows
        own = module == self.package or module.startswith(self.package + ".")
        if not (own or (module, name) in _PLAIN) or name.startswith("__"):
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a game's state")
        found = super().find_class(module, name)
        # A class defined in the game (not one its modules import), never a function.
        home = getattr(found, "__module__", "")
        if not isinstance(found, type) or (own and not home.startswith(self.package)):
            raise pickle.UnpicklingError(f"{module}.{name} is not a class of the game")
        return found


def loads(data: bytes, package: str, kind: type) -> Any:
    """The state ``dumps`` wrote, built only from classes of the Python package ``package``
    (and plain containers); ValueError if ``data`` is anything else or not a ``kind``."""
    try:
        state = _Unpickler(bytes(data), package).load()
    except Exception as exc:  # damaged bytes fail in many ways: each is "not a state"
        raise ValueError(f"not a kept state: {exc}") from None
    if not isinstance(state, kind):
        raise ValueError(f"not a kept state: a {type(state).__name__}")
    return state
