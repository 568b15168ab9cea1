import pytest
from django.core.exceptions import ImproperlyConfigured

from nmbr9site.env import env_bool, env_domains, env_int, env_list, env_str, env_url
from tests.factories import manage


@pytest.mark.parametrize("raw,expected", [("1", True), ("yes", True), ("off", False), ("", False)])
def test_env_bool_reads_booleans(monkeypatch, raw, expected):
    monkeypatch.setenv("X_FLAG", raw)
    assert env_bool("X_FLAG", not expected) is expected


@pytest.mark.parametrize(
    "reader,raw",
    [
        (lambda: env_bool("X_VALUE", True), "maybe"),
        (lambda: env_int("X_VALUE", 1), "ten"),
        (lambda: env_int("X_VALUE", 1, minimum=0), "-5"),
        (lambda: env_url("X_VALUE", "redis://x", schemes=("redis",)), "http://x"),
        (lambda: env_url("X_VALUE", "redis://x", schemes=("redis",)), "redis:/x"),
    ],
)
def test_env_helpers_refuse_nonsense(monkeypatch, reader, raw):
    monkeypatch.setenv("X_VALUE", raw)
    with pytest.raises(ImproperlyConfigured, match="X_VALUE"):
        reader()


def test_env_helpers_read_good_values(monkeypatch):
    monkeypatch.setenv("X_LIST", "a.example, b.example,")
    monkeypatch.setenv("X_INT", "42")
    assert env_list("X_LIST", []) == ["a.example", "b.example"]
    assert env_int("X_INT", 0) == 42
    monkeypatch.delenv("X_MISSING", raising=False)
    with pytest.raises(ImproperlyConfigured, match="X_MISSING"):
        env_str("X_MISSING")


def test_env_domains_reads_host_names(monkeypatch):
    monkeypatch.setenv("X_DOMAINS", "push.example.org, Push.Example.NET,")
    assert env_domains("X_DOMAINS", []) == ["push.example.org", "push.example.net"]
    monkeypatch.delenv("X_DOMAINS")
    assert env_domains("X_DOMAINS", ["a.example"]) == ["a.example"]


@pytest.mark.parametrize(
    "raw",
    [
        "https://push.example.org",
        "push.example.org/x",
        "10.0.0.1",
        "localhost",
        "*.example.org",
        "push example.org",
        "push.example.org:443",
        "-push.example.org",
        "push..example.org",
        "push.example.org.",
    ],
)
def test_env_domains_refuses_what_is_no_host_name(monkeypatch, raw):
    monkeypatch.setenv("X_DOMAINS", raw)
    with pytest.raises(ImproperlyConfigured, match="X_DOMAINS"):
        env_domains("X_DOMAINS", [])


def test_secret_key_is_required_without_debug():
    result = manage("check", DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_a_bad_value_stops_start_up():
    result = manage("check", DEBUG="perhaps")
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


def test_check_deploy_is_clean_with_production_settings():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="x7#q9-Zp!r2@Lm4$vT8^nB6&kW1*dF3(hJ5)sG0+aC9=eY2~uI4",
        ALLOWED_HOSTS="nmbr9.example.org",
        EMAIL_HOST="smtp.example.org",
        SITE_URL="https://nmbr9.example.org",
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_wants_real_mail_in_production():
    result = manage(
        "check",
        "--deploy",
        DEBUG="0",
        SECRET_KEY="x7#q9-Zp!r2@Lm4$vT8^nB6&kW1*dF3(hJ5)sG0+aC9=eY2~uI4",
        ALLOWED_HOSTS="nmbr9.example.org",
        SITE_URL="https://nmbr9.example.org",
    )
    assert result.returncode != 0
    assert "mail.E001" in result.stderr


def test_the_site_url_is_required_without_debug():
    result = manage(
        "check",
        DEBUG="0",
        SECRET_KEY="x7#q9-Zp!r2@Lm4$vT8^nB6&kW1*dF3(hJ5)sG0+aC9=eY2~uI4",
        ALLOWED_HOSTS="nmbr9.example.org",
        EMAIL_HOST="smtp.example.org",
    )
    assert result.returncode != 0
    assert "SITE_URL must be a URL" in result.stderr


def test_the_operator_adds_push_services_to_the_browsers_ones():
    shown = "from django.conf import settings; print(' '.join(settings.PUSH_SERVICES))"
    result = manage("shell", "-c", shown, PUSH_EXTRA_SERVICES="push.example.org")
    assert result.returncode == 0, result.stderr
    services = result.stdout.split()
    assert services[-1] == "push.example.org"
    assert {"fcm.googleapis.com", "push.services.mozilla.com", "notify.windows.com"} < set(services)
    result = manage("check", PUSH_EXTRA_SERVICES="https://push.example.org/")
    assert result.returncode != 0
    assert "PUSH_EXTRA_SERVICES must list host names" in result.stderr
