"""E-mail addresses confirmed by a link: at sign-up (an address another account has is not
told apart from a free one) and when a player changes theirs."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from games.infra import queue
from games.models import Profile
from games.services.features import addresses
from tests.factories import PASSWORD, sign_up, wait_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_away(monkeypatch):
    """Mail goes out at once, as when the broker is away."""
    monkeypatch.setattr(queue, "send_now", lambda task, *args: False)


def link_in(message) -> str:
    return re.search(r"https?://\S+", message.body).group(0).split("://", 1)[1].split("/", 1)[1]


def test_a_sign_up_is_answered_the_same_whether_or_not_the_address_is_taken(
    client, alice, broker_away, settings
):
    settings.SITE_URL = "https://nmbr9.example.org"
    free = sign_up(client, "dora", "dora@example.com")
    client.logout()
    taken = sign_up(client, "eve", "ALICE@example.com")
    assert free.status_code == taken.status_code == 302
    assert free.url == taken.url == reverse("learn")
    said = [str(m) for m in client.get(reverse("home")).context["messages"]]
    assert said == [
        "We sent a link to alice@example.com: follow it to confirm the address is yours."
    ]
    assert "already" not in client.get(reverse("settings")).text
    # Dora gets her link; Alice, the address's owner, gets a word and a reset link.
    to_dora, to_alice = mail.outbox
    assert to_dora.to == ["dora@example.com"] and "/email/confirm/" in to_dora.body
    assert to_alice.to == ["alice@example.com"] and "/accounts/reset/" in to_alice.body
    assert "alice" in to_alice.body and "eve" not in to_alice.body
    eve = User.objects.get(username="eve")
    assert eve.email == "" and eve.profile.pending_email == "alice@example.com"


def test_following_the_link_confirms_the_address(client, broker_away):
    sign_up(client, "dora", "dora@example.com")
    path = "/" + link_in(mail.outbox[0])
    page = client.get(path)
    assert page.status_code == 200 and "data-confirm-email" in page.text
    assert User.objects.get(username="dora").email == ""  # a GET confirms nothing
    response = client.post(path)
    assert response.status_code == 302 and response.url == reverse("settings")
    dora = User.objects.get(username="dora")
    assert dora.email == "dora@example.com" and dora.profile.pending_email == ""
    assert client.post(path).status_code == 302  # followed twice: still fine


def test_an_unconfirmed_account_gets_no_other_email(client, broker_away):
    sign_up(client, "dora", "dora@example.com")
    mail.outbox.clear()
    client.post(reverse("logout"))
    assert client.post(reverse("password_reset"), {"email": "dora@example.com"}).status_code == 302
    assert mail.outbox == []
    # It can log in, and is asked to confirm its address.
    assert client.post(reverse("login"), {"username": "dora", "password": PASSWORD}).url
    home = client.get(reverse("home"))
    assert "data-confirm-banner" in home.text


def test_a_broken_or_stale_link_changes_nothing(client, alice, broker_away):
    assert client.post(reverse("confirm_email", args=["nonsense"])).status_code == 400
    addresses.ask(alice, "new@example.com")
    old = addresses.token(alice, "new@example.com")
    addresses.ask(alice, "newer@example.com")
    response = client.post(reverse("confirm_email", args=[old]))
    assert response.status_code == 400 and "replaced" in response.text
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    forged = old[:-2] + ("AA" if not old.endswith("AA") else "BB")
    assert client.post(reverse("confirm_email", args=[forged])).status_code == 400


def test_an_address_another_account_confirmed_first_is_refused(client, alice, bob):
    addresses.ask(bob, "alice@example.com")
    link = addresses.token(bob, "alice@example.com")
    response = client.post(reverse("confirm_email", args=[link]))
    assert response.status_code == 400 and "another account" in response.text
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"


def test_a_change_of_address_is_confirmed_by_a_link_to_the_new_one(client, alice, broker_away):
    client.force_login(alice)
    data = {"email": "Alice.New@example.com", "password": PASSWORD}
    response = client.post(reverse("change_email"), data)
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"  # until confirmed
    (sent,) = mail.outbox
    assert sent.to == ["alice.new@example.com"]
    assert "alice.new@example.com" in client.get(reverse("settings")).text
    client.post("/" + link_in(sent))
    alice.refresh_from_db()
    assert alice.email == "alice.new@example.com"


def test_the_old_address_is_told_of_a_change_with_a_way_to_take_the_account_back(
    client, alice, broker_away
):
    Profile.objects.update_or_create(player=alice, defaults={"language": "de"})
    client.force_login(alice)
    client.post(reverse("change_email"), {"email": "mallory@example.com", "password": PASSWORD})
    client.post("/" + link_in(mail.outbox[0]))
    (told,) = mail.outbox[1:]
    assert told.to == ["alice@example.com"]
    assert told.subject == "Deine nmbr9site-E-Mail-Adresse wurde geändert"
    assert "mallory@example.com" in told.body
    client.logout()
    # The link lets the old address's owner choose a new password.
    page = client.get("/" + link_in(told), follow=True)
    assert page.status_code == 200 and 'name="new_password1"' in page.text
    client.post("/" + link_in(mail.outbox[0]))  # the confirmation link followed again
    assert len(mail.outbox) == 2  # says nothing more


def test_a_change_of_address_asks_for_the_password(client, alice, broker_away):
    client.force_login(alice)
    response = client.post(reverse("change_email"), {"email": "x@example.com", "password": "no"})
    assert response.status_code == 400 and "not your password" in response.text
    assert mail.outbox == [] and addresses.pending(alice) == ""


def test_the_link_can_be_sent_again_a_few_times(client, broker_away):
    sign_up(client, "dora", "dora@example.com")
    for _ in range(5):
        assert client.post(reverse("resend_link")).status_code == 302
    assert client.post(reverse("resend_link")).status_code == 429
    assert len(mail.outbox) == 6


def test_the_emails_are_in_their_readers_language(client, alice, broker_away):
    Profile.objects.create(player=alice, language="de")
    sign_up(client, "eve", "alice@example.com", HTTP_ACCEPT_LANGUAGE="en")
    client.logout()
    sign_up(client, "dora", "dora@example.com", HTTP_ACCEPT_LANGUAGE="de")
    to_alice, to_dora = mail.outbox
    assert "Hallo alice" in to_alice.body and "Hallo dora" in to_dora.body
    assert "E-Mail-Adresse" in to_dora.subject


@pytest.mark.worker
def test_the_link_is_sent_by_the_worker(celery_worker, client):
    sign_up(client, "dora", "dora@example.com")
    wait_for(lambda: len(mail.outbox) == 1)
    assert mail.outbox[0].to == ["dora@example.com"]


def test_a_guest_who_signs_up_keeps_their_games_and_is_asked_to_confirm(client, broker_away):
    from games.services.features import guests

    client.post(reverse("new_solo"), {"game": "nmbr9"})
    guest_id = client.session["guest"]
    assert guests.is_guest(guest_id)
    response = sign_up(client, "dora", "dora@example.com")
    assert response.url == reverse("home")  # a guest who played comes back to their games
    dora = User.objects.get(username="dora")
    assert dora.seats.exists()
    assert not User.objects.filter(pk=guest_id).exists()
    assert len(mail.outbox) == 1
