"""nmbrs! on the site: its web adapter (``games.web.nmbrs.adapter``)."""

from games.web.nmbrs.adapter import NmbrsWeb

ADAPTER = NmbrsWeb()

__all__ = ["ADAPTER", "NmbrsWeb"]
