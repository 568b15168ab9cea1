"""Rate limits on logins, sign-ups and reset e-mails, counted in the real Redis; and the
site without limits (but without errors) when that Redis cannot be reached."""

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.infra import limits
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def log_in_from(client, username, password, address="10.0.0.1", **headers):
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **headers,
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_ten_wrong_passwords_lock_the_account_right_password_included(client, alice):
    for _ in range(limits.LOGIN_FAILURES - 1):
        assert log_in_from(client, "alice", "wrong").status_code == 200
    assert log_in_from(client, "alice", "wrong").status_code == 429  # the tenth locks
    response = log_in_from(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in response.text
    assert "Try again in 15 minutes." in response.text
    assert not logged_in(client)
    # The same account from elsewhere, with other capitals: still locked.
    assert log_in_from(client, "ALICE", PASSWORD, address="10.9.9.9").status_code == 429


def test_a_client_trying_many_accounts_is_locked_out(client, alice, bob):
    for number in range(limits.LOGIN_FAILURES):
        log_in_from(client, f"user{number}", "wrong", address="10.0.0.2")
    assert log_in_from(client, "bob", PASSWORD, address="10.0.0.2").status_code == 429
    assert not logged_in(client)
    assert log_in_from(client, "bob", PASSWORD, address="10.0.0.3").status_code == 302
    assert logged_in(client)


def test_a_right_password_before_the_limit_resets_the_accounts_count(client, alice):
    for _ in range(limits.LOGIN_FAILURES - 1):
        log_in_from(client, "alice", "wrong", address="10.0.0.5")
    assert log_in_from(client, "alice", PASSWORD, address="10.0.0.5").status_code == 302
    client.logout()
    # From another address (the first one's count is not reset): the account's count is.
    for _ in range(limits.LOGIN_FAILURES - 1):
        log_in_from(client, "alice", "wrong", address="10.0.0.6")
    assert log_in_from(client, "alice", PASSWORD, address="10.0.0.6").status_code == 302


def test_logging_into_an_own_account_does_not_clear_the_addresss_count(client, alice, bob):
    address = "10.0.0.4"
    for number in range(limits.LOGIN_FAILURES - 1):
        assert log_in_from(client, f"ghost{number}", "wrong", address=address).status_code == 200
    assert log_in_from(client, "bob", PASSWORD, address=address).status_code == 302
    client.logout()
    assert log_in_from(client, "ghost9", "wrong", address=address).status_code == 429
    assert log_in_from(client, "alice", PASSWORD, address=address).status_code == 429
    assert not logged_in(client)


def test_the_lockout_message_is_in_the_players_language(client, alice):
    for _ in range(limits.LOGIN_FAILURES):
        log_in_from(client, "alice", "wrong")
    response = client.post(
        reverse("login"),
        {"username": "alice", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.1",
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.status_code == 429
    assert "Zu viele fehlgeschlagene Anmeldungen" in response.text
    assert "Too many" not in response.text


def sign_up_from(client, number, address="10.0.1.1", forwarded=None):
    headers = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    data = {
        "username": f"new{number}",
        "email": f"new{number}@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    response = client.post(reverse("signup"), data, REMOTE_ADDR=address, **headers)
    client.logout()
    return response


def test_sign_ups_are_limited_per_client(client):
    for number in range(5):
        assert sign_up_from(client, number).status_code == 302
    response = sign_up_from(client, 5)
    assert response.status_code == 429
    assert "Too many sign-ups from your address. Try again in" in response.text
    assert 'value="new5"' in response.text and 'value="new5@example.com"' in response.text
    assert not User.objects.filter(username="new5").exists()
    assert sign_up_from(client, 6, address="10.0.1.2").status_code == 302


PROXY = "127.0.0.1"


def test_behind_the_proxy_the_address_it_added_is_the_clients(client, settings):
    """The proxy appends the address it was reached from to X-Forwarded-For: what comes
    before it is the client's own writing and must not make it someone else."""
    settings.BEHIND_TLS_PROXY = True
    for number in range(5):
        forged = f"198.51.100.{number}, 203.0.113.7"
        assert sign_up_from(client, number, PROXY, forged).status_code == 302
    assert sign_up_from(client, 5, PROXY, "garbage, 203.0.113.7").status_code == 429
    # Others behind the same proxy, and a request the proxy added nothing to: not counted.
    assert sign_up_from(client, 6, PROXY, "203.0.113.8").status_code == 302
    assert sign_up_from(client, 7, PROXY).status_code == 302


def test_behind_the_proxy_one_clients_failures_lock_out_no_other(client, settings, alice):
    settings.BEHIND_TLS_PROXY = True
    for number in range(limits.LOGIN_FAILURES):
        log_in_from(client, f"ghost{number}", "wrong", PROXY, HTTP_X_FORWARDED_FOR="203.0.113.8")
    response = log_in_from(client, "alice", PASSWORD, PROXY, HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert response.status_code == 302
    client.logout()
    forged = "203.0.113.9, 203.0.113.8"
    assert (
        log_in_from(client, "alice", PASSWORD, PROXY, HTTP_X_FORWARDED_FOR=forged).status_code
        == 429
    )


def test_without_the_proxy_x_forwarded_for_is_not_believed(client):
    for number in range(5):
        assert sign_up_from(client, number, "10.0.3.1", f"203.0.113.{number}").status_code == 302
    assert sign_up_from(client, 5, "10.0.3.1", "203.0.113.99").status_code == 429


def reset(client, email, address="10.0.2.1"):
    return client.post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=address)


def test_reset_emails_are_limited_per_address_and_per_client(client, alice):
    for _ in range(3):
        assert reset(client, "alice@example.com").status_code == 302
    response = reset(client, "Alice@Example.com", address="10.0.2.2")
    assert response.status_code == 429 and "Try again in" in response.text
    for number in range(7):
        assert reset(client, f"x{number}@example.com").status_code == 302
    assert reset(client, "y@example.com").status_code == 429  # the 11th from 10.0.2.1
    assert reset(client, "y@example.com", address="10.0.2.3").status_code == 302


def test_a_reset_answers_alike_whether_or_not_the_address_has_an_account(client, alice):
    answers = []
    for email in ("alice@example.com", "nobody@example.com"):
        with CaptureQueriesContext(connection) as queries:
            response = reset(client, email, address=f"10.0.3.{len(answers)}")
        answers.append((response.status_code, response.url, len(queries)))
    assert answers[0] == answers[1]
    assert mail.outbox == []  # the e-mail is the worker's job


@pytest.fixture
def redis_away(settings):
    """The cache's Redis cannot be reached (nothing listens on its port)."""
    from nmbr9site.processes import free_port

    away = settings.CACHES["default"] | {"LOCATION": f"redis://127.0.0.1:{free_port()}/0"}
    settings.CACHES = {"default": away}


def test_without_redis_the_limits_let_everything_through_without_errors(redis_away, client, alice):
    for _ in range(limits.LOGIN_FAILURES + 5):
        assert log_in_from(client, "alice", "wrong").status_code == 200
    assert log_in_from(client, "alice", PASSWORD).status_code == 302
    client.logout()
    for number in range(7):
        assert sign_up_from(client, number).status_code == 302
    for _ in range(5):
        assert reset(client, "nobody@example.com").status_code == 302


def test_changes_of_password_are_limited_per_player(client, alice):
    client.force_login(alice)
    url = reverse("password_change")
    wrong = {
        "old_password": "wrong",
        "new_password1": "x-New-pa55word",
        "new_password2": "x-New-pa55word",
    }
    for _ in range(10):
        assert client.post(url, wrong).status_code == 200  # the form says the old one is wrong
    right = {**wrong, "old_password": PASSWORD}
    response = client.post(url, right)
    assert response.status_code == 429
    assert "Too many attempts to change your password. Try again in" in response.text
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_new_matches_and_challenges_are_limited_per_player(client, alice, bob):
    from games.models import Match, Notification

    client.force_login(alice)
    data = {"players": "2", "pace": "free", "time_control": "1d", "removed": "0", "invite": "bob"}
    for _ in range(30):
        assert client.post(reverse("new_match"), data).status_code == 302
    response = client.post(reverse("new_match"), data)
    assert response.status_code == 429
    assert "too many matches and challenges. Try again in" in response.text
    challenge = {"players": "2", "time_control": "1d", "invite": "bob"}
    assert client.post(reverse("new_challenge"), challenge).status_code == 429
    assert Match.objects.count() == 30
    assert Notification.objects.filter(player=bob).count() == 30


def test_games_against_bots_count_among_new_matches_and_solo_games_do_not(client, alice):
    from games.models import Match

    client.force_login(alice)
    for _ in range(30):
        assert client.post(reverse("new_solo"), {"game": "nmbr9", "bot": "easy"}).status_code == 302
    response = client.post(reverse("new_solo"), {"game": "nmbr9", "bot": "easy"})
    assert response.status_code == 429
    assert "too many matches and challenges. Try again in" in response.text
    assert Match.objects.count() == 30
    assert client.post(reverse("new_solo"), {"game": "nmbr9"}).status_code == 302
    assert Match.objects.count() == 31


def test_refused_sign_up_forms_do_not_count_against_the_limit(client):
    """A form sent back with its mistakes costs nothing; each account made counts."""
    for number in range(8):
        data = {"username": f"new{number}", "email": "not an address"}
        response = client.post(reverse("signup"), data, REMOTE_ADDR="10.0.4.1")
        assert response.status_code == 400
    for number in range(5):
        assert sign_up_from(client, number, "10.0.4.1").status_code == 302
    assert sign_up_from(client, 5, "10.0.4.1").status_code == 429
