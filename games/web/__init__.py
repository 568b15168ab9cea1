"""How each game looks on the site: its web adapter (``games.web.base.WebAdapter``), by slug
(``games.web.registry``). A game's web package (``games.web.nmbr9``) is a game package
(``games.registry``): it is imported for its rules alone, before the adapters are."""

from typing import Any

__all__ = ["ADAPTERS", "adapter_for", "puzzle_adapter"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from games.web import registry

        return getattr(registry, name)
    raise AttributeError(name)
