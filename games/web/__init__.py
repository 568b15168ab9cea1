"""How each game looks on the site: its web adapter (see ``games.web.base``), by slug."""

from games.web.nmbr9 import ADAPTER as NMBR9
from games.web.nmbrs import ADAPTER as NMBRS

ADAPTERS = {NMBR9.slug: NMBR9, NMBRS.slug: NMBRS}


def adapter_for(slug: str):
    """The web adapter of the game called ``slug``; ValueError if there is none."""
    try:
        return ADAPTERS[slug]
    except KeyError:
        raise ValueError(f"unsupported game: {slug!r}") from None
