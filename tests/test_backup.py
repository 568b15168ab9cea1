"""Backups: a dump of the database restored into a fresh one replays every match to the same
views, with the commands the README gives (pg_dump, createdb, pg_restore, dropdb).

The views are printed by ``manage.py shell`` run on each database, the test's and the
restored one, with the same hash seed, so the two printouts are compared as text.
"""

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from games import services
from games.models import Match, Move
from tests.factories import make_match, nmbrs_match, play, play_to_end

pytestmark = pytest.mark.django_db(transaction=True)  # pg_dump sees committed rows only

TOOLS = ("pg_dump", "pg_restore", "createdb", "dropdb", "psql")


def views_of_every_match() -> dict[str, dict]:
    """Each match as its players see it: its moves, its seats' figures, each player's view
    and, once it is over, every frame of its replay (every player's view after each move)."""
    found = {}
    for match in Match.objects.order_by("pk"):
        seats = list(match.seats.select_related("player").order_by("index"))
        entry = {
            "game": match.game,
            "status": match.status,
            "options": match.options,
            "moves": [
                [move.seat.index, move.text]
                for move in Move.objects.filter(match=match).select_related("seat").order_by("pk")
            ],
            "seats": [
                [s.player.username, s.state, s.score, s.rank, s.progress, s.total_strikes]
                for s in seats
            ],
        }
        if match.status not in (Match.Status.WAITING, Match.Status.CANCELLED):
            shown = {s.player.username: services.view_match(match.pk, s.player) for s in seats}
            entry["views"] = {name: repr(mv.view) for name, mv in shown.items()}
            entry["replay"] = [
                repr(frame) for frame in services.history(shown[seats[0].player.username])
            ]
            everyone = services.history(shown[seats[0].player.username], everyone=True)
            entry["replay_everyone"] = [repr(frame) for frame in everyone]
        found[str(match.pk)] = entry
    return found


def print_views() -> None:
    """What ``manage.py shell`` prints for the test: the views of every match as JSON."""
    print(json.dumps(views_of_every_match(), sort_keys=True))


def _url(name: str) -> str:
    """The address of the database ``name`` on the test's server, as DATABASE_URL says it."""
    db = connection.settings_dict
    user = quote(db["USER"] or "", safe="")
    password = f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else ""
    host = db["HOST"] or "localhost"
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{user}{password}@{host}{port}/{name}"


def _run(*command: str, **env: str) -> str:
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        cwd=settings.BASE_DIR,
    )
    assert done.returncode == 0, f"{command[0]} failed: {done.stderr}"
    return done.stdout


def _views_in(name: str) -> dict:
    """The views of every match as a separate process reads them from the database ``name``."""
    out = _run(
        sys.executable,
        "manage.py",
        "shell",
        "-c",
        "from tests.test_backup import print_views; print_views()",
        DATABASE_URL=_url(name),
        PYTHONHASHSEED="0",
    )
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def postgres():
    if connection.vendor != "postgresql":
        pytest.skip("a backup is a PostgreSQL dump: this run uses SQLite (set DATABASE_URL)")
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    assert not missing, f"PostgreSQL's client tools are not installed: {missing}"


def nmbrs_moves(match, users, count: int) -> None:
    """``count`` moves of nmbrs! (fewer if the match ends), each the rules' automatic move of
    the player to move, as that player's page would send it."""
    for _ in range(count):
        record = services.load(match)
        state = record.state
        if state.over:
            return
        user = users[state.to_move]
        made = Move.objects.filter(match=match, seat__player=user).count()
        services.play(match.pk, user, str(record.rules.auto_move(state, state.to_move)), made)


@pytest.fixture
def matches(alice, bob, carol):
    """Matches of both games, finished and under way, one left by a resignation, a solo game
    and one waiting for its players."""
    finished = make_match(alice, bob, seed=5, rated=True)
    play_to_end(finished, [alice, bob])
    running = make_match(alice, bob, carol, pace="free", seed=9)
    for user in (alice, alice, bob, carol, alice):
        play(running, user)
    left = make_match(bob, carol, seed=3)
    play(left, bob)
    play(left, carol)
    services.resign(left.pk, carol)
    solo = services.start_solo(carol, seed=4)
    play(solo, carol)
    nmbrs_done = nmbrs_match(alice, carol, target=30)
    nmbrs_moves(nmbrs_done, [alice, carol], 3000)
    nmbrs_running = nmbrs_match(bob, alice, carol)
    nmbrs_moves(nmbrs_running, [bob, alice, carol], 7)
    services.create_match(
        alice, players=3, time_control="1d", rated=False, invite=["bob"], open=True
    )
    return [finished, running, left, solo, nmbrs_done, nmbrs_running]


def test_a_dump_restored_into_a_fresh_database_replays_every_match_to_the_same_views(
    postgres, matches, tmp_path: Path
):
    original = connection.settings_dict["NAME"]
    before = _views_in(original)
    statuses = {(m["game"], m["status"]) for m in before.values()}
    assert {("nmbr9", "finished"), ("nmbr9", "active"), ("nmbrs", "finished")} <= statuses
    assert ("nmbrs", "active") in statuses and len(before) == 7
    assert all(m["replay"] for m in before.values() if m["status"] == "finished")
    assert " at 0x" not in json.dumps(before)  # every view is told by its contents

    dump = tmp_path / "site.dump"
    fresh = f"{original}_restored_{uuid.uuid4().hex[:8]}"
    _run("pg_dump", "--format=custom", f"--file={dump}", f"--dbname={_url(original)}")
    assert dump.stat().st_size > 0
    _run("createdb", f"--maintenance-db={_url('postgres')}", fresh)
    try:
        _run("pg_restore", "--no-owner", "--exit-on-error", f"--dbname={_url(fresh)}", str(dump))
        after = _views_in(fresh)
    finally:
        _run("dropdb", f"--maintenance-db={_url('postgres')}", "--if-exists", fresh)
    assert after == before
    listed = _run("psql", f"--dbname={_url('postgres')}", "-Atc", "SELECT datname FROM pg_database")
    assert fresh not in listed.split()
