"""NMBR 9 on the site: its web adapter (``games.web.nmbr9.adapter``)."""

from games.web.nmbr9.adapter import Nmbr9Web

ADAPTER = Nmbr9Web()

__all__ = ["ADAPTER", "Nmbr9Web"]
