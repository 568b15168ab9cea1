"""How each game looks on the site: its web adapter (``games.web.base.WebAdapter``), by slug
(``games.web.registry``)."""

from games.web.registry import ADAPTERS, adapter_for, puzzle_adapter

__all__ = ["ADAPTERS", "adapter_for", "puzzle_adapter"]
