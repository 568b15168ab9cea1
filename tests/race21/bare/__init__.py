"""Race to 21's rules with no web adapter: a game package the system check refuses."""

from tests.race21 import RULES

__all__ = ["RULES"]
