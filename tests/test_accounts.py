import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from tests.factories import PASSWORD, wait_for

pytestmark = pytest.mark.django_db


def test_it_signs_up_and_logs_in(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "dora",
            "email": "Dora@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    user = User.objects.get(username="dora")
    assert user.email == "" and user.profile.pending_email == "dora@example.com"
    home = client.get(reverse("home"))
    assert 'class="who"' in home.text and "dora" in home.text


def test_it_refuses_mismatched_passwords_and_creates_nobody(client):
    response = client.post(
        reverse("signup"),
        {"username": "dora", "email": "d@example.com", "password1": PASSWORD, "password2": "x"},
    )
    assert response.status_code == 400
    assert "The two password fields didn" in response.text
    assert not User.objects.filter(username="dora").exists()


def test_it_logs_in_and_out(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert "alice" in client.get(reverse("home")).text
    assert client.get(reverse("logout")).status_code == 405
    client.post(reverse("logout"))
    assert 'class="who"' not in client.get(reverse("home")).text


def test_it_shows_an_error_for_a_wrong_password(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.text


def test_it_changes_the_password(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "An0ther-pa55",
            "new_password2": "An0ther-pa55",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("An0ther-pa55")


@pytest.mark.worker
def test_it_resets_the_password_by_email(celery_worker, client, alice, settings):
    settings.SITE_URL = "https://nmbr9.example.org"
    response = client.post(reverse("password_reset"), {"email": "alice@example.com"})
    assert response.status_code == 302
    wait_for(lambda: len(mail.outbox) == 1)  # sent by the worker
    link = re.search(r"https://\S+/accounts/reset/\S+/", mail.outbox[0].body).group(0)
    path = link.split("nmbr9.example.org", 1)[1]
    form_page = client.get(path, follow=True)
    assert form_page.status_code == 200
    set_url = form_page.redirect_chain[-1][0]
    response = client.post(
        set_url, {"new_password1": "Fre5h-pa55word", "new_password2": "Fre5h-pa55word"}
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("Fre5h-pa55word")


def test_every_account_page_renders(client, alice):
    for name in ("login", "signup", "password_reset", "password_reset_done"):
        assert client.get(reverse(name)).status_code == 200
    client.force_login(alice)
    for name in ("password_change", "password_change_done", "home"):
        assert client.get(reverse(name)).status_code == 200


def test_a_sign_up_that_loses_a_race_for_its_name_says_so(client, alice, monkeypatch):
    """Two sign-ups at once both pass the form's checks; the database keeps one account per
    name (any capitals), and the late one is told, not answered with a 500."""
    from games.forms import SignupForm

    monkeypatch.setattr(SignupForm, "clean_username", lambda form: form.cleaned_data["username"])
    monkeypatch.setattr(SignupForm, "validate_unique", lambda form: None)
    data = {"username": "ALICE", "email": "dora@example.com"}
    response = client.post(
        reverse("signup"), {**data, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 400
    assert "taken just now" in response.text
    assert User.objects.count() == 1 and "_auth_user_id" not in client.session


def test_a_sign_up_with_a_taken_name_says_so(client, alice):
    """Django's check of the name answers nothing for a taken one (any capitals): the form
    shows its error instead of reading the missing name (a 500)."""
    for name in ("alice", "ALICE"):
        response = client.post(
            reverse("signup"),
            {
                "username": name,
                "email": "dora@example.com",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
        assert response.status_code == 400
        assert "already exists" in response.text
    assert User.objects.count() == 1


def test_an_empty_signup_shows_what_is_missing(client):
    response = client.post(reverse("signup"), {})
    assert response.status_code == 400
    assert "This field is required" in response.text
    assert User.objects.count() == 0


def test_signed_in_requests_read_the_user_and_refuse_one_who_may_not_sign_in(client, alice):
    from games.infra.backends import Accounts

    backend = Accounts()
    assert backend.get_user(str(alice.pk)) == alice
    assert backend.get_user(alice.pk + 1000) is None
    assert backend.get_user("not a number") is None
    client.force_login(alice)
    assert client.get(reverse("settings")).status_code == 200
    User.objects.filter(pk=alice.pk).update(is_active=False)
    assert backend.get_user(str(alice.pk)) is None
    response = client.get(reverse("settings"))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_a_session_signed_in_with_djangos_own_backend_stays_signed_in(client, alice):
    client.force_login(alice, backend="django.contrib.auth.backends.ModelBackend")
    response = client.get(reverse("settings"))
    assert response.status_code == 200 and response.context["user"] == alice


def test_a_wrong_password_is_hashed_once_and_a_right_one_signs_in(client, alice, monkeypatch):
    checked = []
    original = User.check_password
    monkeypatch.setattr(
        User, "check_password", lambda user, raw: checked.append(raw) or original(user, raw)
    )
    response = client.post(reverse("login"), {"username": "alice", "password": "wrong"})
    assert response.status_code == 200 and checked == ["wrong"]
    assert "_auth_user_id" not in client.session
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_backend"] == "games.infra.backends.Accounts"


@pytest.mark.parametrize("field, value", [("email", "ALICE@example.com"), ("username", "Alice")])
def test_the_admin_refuses_a_name_or_address_another_account_has_in_other_capitals(
    alice, bob, field, value
):
    from django.forms.models import model_to_dict

    from games.admin import AccountChangeForm

    form = AccountChangeForm(instance=bob, data={**model_to_dict(bob), field: value})
    assert not form.is_valid() and field in form.errors
    unchanged = AccountChangeForm(instance=bob, data=model_to_dict(bob))
    assert unchanged.is_valid(), unchanged.errors


def test_a_logout_while_redis_is_away_is_final(client, alice, settings):
    """The session must not survive in a cache that missed the logout."""
    from django.test import Client

    from nmbr9site.processes import free_port

    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert client.get(reverse("settings")).status_code == 200  # read, and cached if ever
    present = settings.CACHES
    away = present["default"] | {"LOCATION": f"redis://127.0.0.1:{free_port()}/0"}
    settings.CACHES = {"default": away}
    assert client.post(reverse("logout")).status_code == 302
    settings.CACHES = present
    other = Client()
    other.cookies[settings.SESSION_COOKIE_NAME] = cookie
    response = other.get(reverse("settings"))
    assert response.status_code == 302 and reverse("login") in response.url


def test_a_session_is_read_until_it_expires(client, alice):
    from datetime import timedelta

    from django.contrib.sessions.models import Session
    from django.utils import timezone

    client.force_login(alice)
    assert client.get(reverse("settings")).status_code == 200
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    response = client.get(reverse("settings"))
    assert response.status_code == 302 and reverse("login") in response.url
