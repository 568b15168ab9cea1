"""/healthz and /readyz: what a load balancer sees in good and bad states."""

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client, override_settings
from django.utils import timezone

from games.infra import health
from games.models import Seat
from tests.factories import closed_port, make_match, seat_of


def no_store(response) -> bool:
    return "no-store" in response.headers.get("Cache-Control", "")


def secrets() -> list[str]:
    """What the answers must never show: the addresses, names and passwords of the
    database and of Redis."""
    from django.conf import settings

    db = connection.settings_dict
    words = [settings.REDIS_URL, "127.0.0.1", "localhost", "redis://", "postgres"]
    words += [str(db.get(key) or "") for key in ("NAME", "USER", "PASSWORD", "HOST")]
    return [word for word in words if len(word) >= 4]


def assert_no_secrets(response) -> None:
    body = response.content.decode()
    leaked = [word for word in secrets() if word in body]
    assert leaked == [], body


def get(path: str, **headers):
    # A load balancer asks by the server's address, over plain http, without cookies.
    return Client(headers=headers).get(path, HTTP_HOST="10.9.8.7")


@override_settings(SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["nmbr9.example.org"])
def test_healthz_answers_without_the_database():
    # No database access is allowed in this test: any middleware touching it would fail.
    response = get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert no_store(response)


def test_healthz_answers_with_a_session_cookie_and_the_database_away(database_away):
    client = Client()
    client.cookies["sessionid"] = "x" * 32
    response = client.get("/healthz")
    assert response.status_code == 200


@pytest.mark.django_db
@override_settings(SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["nmbr9.example.org"])
def test_readyz_is_ready_when_everything_is():
    health.swept()
    response = get("/readyz")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["ready"] is True
    assert set(report["checks"]) == {"database", "migrations", "redis", "sweep", "overdue"}
    assert all(check["ok"] for check in report["checks"].values())
    assert report["checks"]["overdue"]["oldest_seconds"] == 0
    assert report["checks"]["migrations"]["unapplied"] == 0
    assert no_store(response)
    assert_no_secrets(response)


def not_ready(failing: str) -> dict:
    response = get("/readyz")
    assert response.status_code == 503, response.content
    assert no_store(response)
    assert_no_secrets(response)
    report = response.json()
    assert report["ready"] is False
    assert [name for name, check in report["checks"].items() if not check["ok"]] == [failing]
    return report["checks"][failing]


@pytest.mark.django_db
def test_readyz_is_not_ready_before_the_first_sweep():
    assert not_ready("sweep") == {"ok": False, "age_seconds": None}


@pytest.mark.django_db
def test_readyz_is_not_ready_when_the_last_sweep_is_over_two_minutes_old():
    health.swept(timezone.now() - timedelta(seconds=100))
    assert get("/readyz").status_code == 200
    health.swept(timezone.now() - timedelta(minutes=2, seconds=5))
    assert not_ready("sweep")["age_seconds"] >= 125


@pytest.mark.django_db
def test_readyz_is_not_ready_when_a_deadline_waits_over_five_minutes(alice, bob):
    health.swept()
    match = make_match(alice, bob)
    seat = seat_of(match, alice)
    Seat.objects.filter(pk=seat.pk).update(deadline=timezone.now() - timedelta(minutes=4))
    report = get("/readyz").json()
    assert report["ready"] is True
    assert 239 <= report["checks"]["overdue"]["oldest_seconds"] < 250
    Seat.objects.filter(pk=seat.pk).update(deadline=timezone.now() - timedelta(minutes=6))
    assert not_ready("overdue")["oldest_seconds"] >= 360


@pytest.mark.django_db
def test_readyz_is_not_ready_while_a_migration_is_not_applied():
    health.swept()
    recorder = MigrationRecorder(connection)
    last = max(name for app, name in recorder.applied_migrations() if app == "games")
    recorder.record_unapplied("games", last)
    assert not_ready("migrations") == {"ok": False, "unapplied": 1}


@pytest.mark.django_db
def test_readyz_is_not_ready_when_redis_cannot_be_reached():
    health.swept()
    with override_settings(CELERY_BROKER_URL=f"redis://127.0.0.1:{closed_port()}/0"):
        check = not_ready("redis")
    assert check == {"ok": False, "error": "ConnectionError"}


def test_readyz_answers_503_when_the_database_is_away(database_away):
    response = get("/readyz")
    assert response.status_code == 503
    assert no_store(response)
    assert_no_secrets(response)
    checks = response.json()["checks"]
    assert checks["database"] == {"ok": False, "error": "OperationalError"}
    assert not any(checks[name]["ok"] for name in ("migrations", "sweep", "overdue"))
    assert checks["redis"]["ok"] is True
    assert get("/healthz").status_code == 200
