"""What a profile's rating charts read: a player's rating changes in one pool, by game.

A chart is drawn from the whole history (``games.web.charts``) and kept in the cache under
its latest change (``latest_changes``): a page asks for that alone, and reads the history
(``histories``) only for a chart the cache does not have.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max

from games.models import RatingChange


@dataclass(frozen=True)
class Latest:
    """A player's rating changes in a game and pool, as far as a chart of them needs to
    know whether it is the one in the cache: how many, the latest's id and its time (its
    time too, so that a database built afresh, whose numbers start again, never finds the
    charts of the one before)."""

    changes: int = 0
    last_id: int = 0
    last_at: datetime | None = None

    def key(self) -> str:
        at = self.last_at.timestamp() if self.last_at is not None else 0
        return f"{self.changes}:{self.last_id}:{at:.6f}"


def latest_changes(player, games: list[str], pool: str) -> dict[str, Latest]:
    """``Latest`` of ``player``'s rating changes in each of ``games`` (in ``pool``); a
    game without any is left out. One query, that sends back a row per game."""
    rows = (
        RatingChange.objects.filter(player=player, game__in=games, pool=pool)
        .order_by()
        .values("game")
        .annotate(changes=Count("id"), last_id=Max("id"), last_at=Max("created"))
    )
    return {row["game"]: Latest(row["changes"], row["last_id"], row["last_at"]) for row in rows}


def histories(
    player, latest: dict[str, Latest], pool: str
) -> dict[str, list[tuple[float, datetime]]]:
    """``player``'s rating after each of their rated matches in each game of ``latest``
    (in ``pool``), oldest first, with when each was rated: the changes up to the latest
    one it names, not one that came since (a chart is kept under that one). One query."""
    found: dict[str, list[tuple[float, datetime]]] = {game: [] for game in latest}
    if not latest:
        return found
    rows = (
        RatingChange.objects.filter(
            player=player,
            game__in=list(latest),
            pool=pool,
            id__lte=max(known.last_id for known in latest.values()),
        )
        .order_by("id")
        .values_list("id", "game", "after", "created")
    )
    for change_id, game, after, created in rows:
        if change_id <= latest[game].last_id:
            found[game].append((after, created))
    return found
