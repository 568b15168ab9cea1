"""/metrics: who may read it, and what it counts (requests, moves, tasks run by a real
worker, the sweep, e-mails, seats and queues read when scraped)."""

import ipaddress
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, override_settings
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from games.infra import notifications, queue
from games.models import Heartbeat, Seat
from games.tasks import sweep
from nmbr9site.env import env_networks
from tests.factories import closed_port, make_match, manage, play, seat_of, wait_for

TOKEN = "a-token-of-twenty-chars"


def scrape(**headers) -> str:
    response = Client(headers=headers).get("/metrics")
    assert response.status_code == 200, response.content
    assert "no-store" in response.headers["Cache-Control"]
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    return response.content.decode()


def value(text: str, name: str, **labels) -> float | None:
    """The value of the sample ``name`` with ``labels`` in the scraped ``text`` (None: none)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    return None


def count(name: str, **labels) -> float:
    return value(scrape(), name, **labels) or 0.0


# ------------------------------------------------------------------ who may read it


def status(remote: str = "127.0.0.1", **headers) -> int:
    return Client(headers=headers).get("/metrics", REMOTE_ADDR=remote).status_code


def test_metrics_answer_the_allowed_addresses_only():
    assert status("127.0.0.1") == 200
    assert status("::1") == 200
    assert status("203.0.113.5") == 403
    assert status("10.1.2.3") == 403
    networks = [ipaddress.ip_network("10.0.0.0/8")]
    with override_settings(METRICS_ALLOWED_IPS=networks):
        assert status("10.1.2.3") == 200
        assert status("127.0.0.1") == 403


def test_metrics_answer_a_request_with_the_token():
    assert status("203.0.113.5", authorization=f"Bearer {TOKEN}") == 403  # no token set
    with override_settings(METRICS_TOKEN=TOKEN):
        assert status("203.0.113.5", authorization=f"Bearer {TOKEN}") == 200
        assert status("203.0.113.5", authorization=f"Bearer {TOKEN}x") == 403
        assert status("203.0.113.5", authorization=TOKEN) == 403
        assert status("203.0.113.5") == 403


@override_settings(BEHIND_TLS_PROXY=True)
def test_behind_the_proxy_the_client_address_counts_not_the_proxy():
    assert status("127.0.0.1", x_forwarded_for="203.0.113.5") == 403
    assert status("127.0.0.1") == 200  # asked without the proxy


def test_a_refused_scrape_shows_no_metrics():
    response = Client().get("/metrics", REMOTE_ADDR="203.0.113.5")
    assert response.status_code == 403
    assert b"nmbr9site_" not in response.content
    assert "no-store" in response.headers["Cache-Control"]


# ------------------------------------------------------------------ what it counts


@pytest.mark.django_db
def test_requests_are_counted_by_view_and_status_and_timed(client):
    before = count("nmbr9site_requests_total", view="leaderboard", status="200")
    timed = count("nmbr9site_request_duration_seconds_count", view="leaderboard")
    missing = count("nmbr9site_requests_total", view="unresolved", status="404")
    assert client.get("/leaderboard/").status_code == 200
    assert client.get("/no/such/page/").status_code == 404
    text = scrape()
    assert value(text, "nmbr9site_requests_total", view="leaderboard", status="200") == before + 1
    assert value(text, "nmbr9site_request_duration_seconds_count", view="leaderboard") == timed + 1
    assert value(text, "nmbr9site_requests_total", view="unresolved", status="404") == missing + 1


@pytest.mark.django_db
def test_moves_are_counted_per_game_once_committed(alice, bob, django_capture_on_commit_callbacks):
    match = make_match(alice, bob, pace="free")
    before = count("nmbr9site_moves_total", game=match.game)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        play(match, alice)
    assert count("nmbr9site_moves_total", game=match.game) == before  # not committed yet
    for callback in callbacks:
        callback()
    assert count("nmbr9site_moves_total", game=match.game) == before + 1


@pytest.mark.django_db
def test_the_sweep_is_timed_and_noted(alice, bob):
    before = count("nmbr9site_sweep_duration_seconds_count")
    sweep()
    assert count("nmbr9site_sweep_duration_seconds_count") == before + 1
    assert Heartbeat.objects.get(name="sweep").at > timezone.now() - timedelta(seconds=5)


@pytest.mark.worker
def test_tasks_run_by_a_worker_are_counted_done_and_failed(celery_worker):
    done = count("nmbr9site_tasks_total", task="games.tasks.sweep", outcome="done")
    failed = count("nmbr9site_tasks_total", task="games.tasks.remind_seats", outcome="failed")
    assert queue.send_now("games.tasks.sweep")
    assert queue.send_now("games.tasks.remind_seats", ["not a seat"])
    wait_for(
        lambda: count("nmbr9site_tasks_total", task="games.tasks.sweep", outcome="done") > done
    )
    wait_for(
        lambda: (
            count("nmbr9site_tasks_total", task="games.tasks.remind_seats", outcome="failed")
            > failed
        )
    )


@pytest.mark.django_db
def test_mails_are_counted_sent_and_failed(alice, bob):
    make_match(alice, bob, pace="free")  # "your move" e-mails due for both
    sent = count("nmbr9site_mails_total", kind="your_move", outcome="sent")
    failed = count("nmbr9site_mails_total", kind="your_move", outcome="failed")
    due = notifications.due()
    assert len(due) == 2
    smtp = {
        "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "OPTIONS": {"host": "127.0.0.1", "port": closed_port(), "timeout": 2},
    }
    with override_settings(MAILERS={"default": smtp}), pytest.raises(OSError):
        notifications.send_due(due[0])
    assert count("nmbr9site_mails_total", kind="your_move", outcome="failed") == failed + 1
    assert notifications.send_due(due[1])
    assert count("nmbr9site_mails_total", kind="your_move", outcome="sent") == sent + 1
    resets = count("nmbr9site_mails_total", kind="password_reset", outcome="sent")
    notifications.send_password_reset(alice.email)
    assert count("nmbr9site_mails_total", kind="password_reset", outcome="sent") == resets + 1


@pytest.mark.django_db
def test_seats_due_and_overdue_are_read_when_scraped(alice, bob, carol):
    text = scrape()
    assert value(text, "nmbr9site_seats_due") == 0
    assert value(text, "nmbr9site_seats_overdue") == 0
    assert value(text, "nmbr9site_oldest_overdue_seconds") == 0
    match = make_match(alice, bob, carol)
    Seat.objects.filter(pk=seat_of(match, alice).pk).update(
        deadline=timezone.now() - timedelta(minutes=7)
    )
    text = scrape()
    assert value(text, "nmbr9site_seats_due") == 3
    assert value(text, "nmbr9site_seats_overdue") == 1
    assert 420 <= value(text, "nmbr9site_oldest_overdue_seconds") < 430


@pytest.mark.django_db
def test_queue_lengths_are_read_from_redis_when_scraped(celery_queue, alice):
    default, slow, _fast = queue.queue_names()
    assert default == celery_queue
    before = scrape()
    for _ in range(3):  # no worker takes them
        assert queue.send_now("games.tasks.rate_match", 0)
    for _ in range(2):
        assert queue.send_now("games.tasks.refresh_player_stats", alice.pk)
    text = scrape()
    for name, sent in ((default, 3), (slow, 2)):
        was = value(before, "nmbr9site_queue_length", queue=name)
        assert value(text, "nmbr9site_queue_length", queue=name) == was + sent


@pytest.mark.django_db
def test_metrics_answer_with_redis_away():
    with override_settings(CELERY_BROKER_URL=f"redis://127.0.0.1:{closed_port()}/0"):
        text = scrape()
    assert value(text, "nmbr9site_queue_length") is None
    assert value(text, "nmbr9site_seats_due") == 0


def test_metrics_answer_with_the_database_away(database_away):
    text = scrape()
    assert value(text, "nmbr9site_seats_due") is None
    assert value(text, "nmbr9site_queue_length") is not None


# ------------------------------------------------------------------ settings


def test_the_allowed_addresses_are_read_strictly(monkeypatch):
    monkeypatch.setenv("X_NETWORKS", "127.0.0.1, 10.0.0.0/8,::1")
    assert [str(n) for n in env_networks("X_NETWORKS", [])] == [
        "127.0.0.1/32",
        "10.0.0.0/8",
        "::1/128",
    ]
    monkeypatch.setenv("X_NETWORKS", "127.0.0.1,prometheus.internal")
    with pytest.raises(ImproperlyConfigured, match="X_NETWORKS"):
        env_networks("X_NETWORKS", [])


def test_a_short_metrics_token_stops_start_up():
    result = manage("check", METRICS_TOKEN="secret")
    assert result.returncode != 0
    assert "METRICS_TOKEN must be at least 16 characters" in result.stderr


# ------------------------------------------------------------------ several processes

ROOT = Path(__file__).resolve().parent.parent
COUNT_A_MAIL = """
import django
django.setup()
from games.infra import metrics
metrics.MAILS.labels("your_move", "sent").inc(3)
"""
SCRAPE = """
import django
django.setup()
from games.infra import metrics
print(metrics.exposition()[0].decode())
"""


def test_with_a_multiprocess_directory_metrics_add_up_every_process(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "nmbr9site.settings",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
    }

    def run(code: str) -> str:
        return subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout

    run(COUNT_A_MAIL)
    run(COUNT_A_MAIL)  # another process, like a second worker
    text = run(SCRAPE)
    assert value(text, "nmbr9site_mails_total", kind="your_move", outcome="sent") == 6
