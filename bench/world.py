"""A history of a successful niche site, written in bulk (PostgreSQL's COPY) into the
database Django is connected to: players with their profiles and figures, finished
matches of every kind with their seats, matches under way, notifications. Rows are made
from the models' own fields and defaults; moves are left out (what reads them reads one
match's). ``build(scale)``: 1.0 is 20,000 players, 278,000 finished matches (801,000 seats),
5,000 under way and 1,000,000 notifications."""

from __future__ import annotations

import random
import time
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import connection, models
from django.utils import timezone
from psycopg.types.json import Jsonb

from games.models import Match, Notification, PlayerStats, Profile, Seat

PLAYERS, FINISHED, RUNNING, NOTIFICATIONS = 20_000, 278_000, 5_000, 1_000_000


def copy(model: type[models.Model], rows: list[dict]) -> list[int]:
    """Write ``rows`` (field name: value; the rest from the field's default) with COPY and
    numbers of their own after the table's highest; their ids."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        first = cursor.fetchone()[0] + 1
        columns = ", ".join(["id", *(f.column for f in fields)])
        defaults = {f.attname: f.get_default() for f in fields}
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as out:
            for number, row in enumerate(rows, start=first):
                values = [number]
                for f in fields:
                    value = row.get(f.attname, row.get(f.name, defaults[f.attname]))
                    values.append(Jsonb(value) if isinstance(value, dict | list) else value)
                out.write_row(values)
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {first + len(rows) - 1})"
        )
    return list(range(first, first + len(rows)))


def build(scale: float = 1.0, seed: int = 9) -> dict[str, float]:
    """Write the history at ``scale``; seconds each part took."""
    rng = random.Random(seed)
    now = timezone.now()
    took = {}
    started = time.monotonic()
    players = copy(
        User,
        [
            {"username": f"player{i}", "password": "!", "date_joined": now, "email": ""}
            for i in range(int(PLAYERS * scale))
        ],
    )
    copy(Profile, [{"player_id": p} for p in players])
    copy(PlayerStats, [{"player_id": p, "updated": now} for p in players])
    took["players"] = time.monotonic() - started

    started = time.monotonic()
    matches, seats = [], []
    kinds = [Match.Kind.MATCH] * 6 + [Match.Kind.SOLO] * 3 + [Match.Kind.PUZZLE]
    for _ in range(int(FINISHED * scale)):
        kind = rng.choice(kinds)
        finished = now - timedelta(days=3 + rng.random() * 700)
        matches.append(
            {
                "kind": kind,
                "status": Match.Status.FINISHED,
                "seed": rng.randrange(2**31),
                "players": 1 if kind != Match.Kind.MATCH else rng.choice((2, 2, 3, 4)),
                "rated": kind == Match.Kind.MATCH,
                "created_by_id": rng.choice(players),
                "created": finished - timedelta(days=2),
                "started": finished - timedelta(days=2),
                "finished": finished,
                "rated_at": finished if kind == Match.Kind.MATCH else None,
                "puzzle_rated_at": finished if kind == Match.Kind.PUZZLE else None,
            }
        )
    ids = copy(Match, matches)
    for match_id, match in zip(ids, matches, strict=True):
        sat = rng.sample(players, match["players"])
        sat[0] = match["created_by_id"] if match["created_by_id"] not in sat[1:] else sat[0]
        for index, player in enumerate(sat):
            seats.append(
                {
                    "match_id": match_id,
                    "player_id": player,
                    "index": index,
                    "score": rng.randrange(200),
                    "rank": index + 1,
                    "progress": 20,
                }
            )
    running = []
    for _ in range(int(RUNNING * scale)):
        running.append(
            {
                "kind": Match.Kind.MATCH,
                "status": Match.Status.ACTIVE,
                "seed": rng.randrange(2**31),
                "players": 2,
                "created_by_id": rng.choice(players),
                "created": now - timedelta(hours=5),
                "started": now - timedelta(hours=5),
                "time_per_move": timedelta(days=1),
            }
        )
    for match_id in copy(Match, running):
        for index, player in enumerate(rng.sample(players, 2)):
            deadline = now + timedelta(hours=1 + rng.random() * 20)
            seats.append(
                {
                    "match_id": match_id,
                    "player_id": player,
                    "index": index,
                    "deadline": deadline,
                    "remind_at": deadline - timedelta(minutes=30),
                    "turn": 3,
                }
            )
    copy(Seat, seats)
    took["matches"] = time.monotonic() - started

    started = time.monotonic()
    copy(
        Notification,
        [
            {
                "player_id": rng.choice(players),
                "text": "A notice",
                "created": now - timedelta(days=rng.random() * 80),
                "read": rng.random() < 0.8,
            }
            for _ in range(int(NOTIFICATIONS * scale))
        ],
    )
    took["notifications"] = time.monotonic() - started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return took
