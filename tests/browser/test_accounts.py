"""A player's own account in headless Chromium, in English and German (on a phone too):
signing up and confirming the address by its link, changing it, exporting the data,
closing the account, and the privacy page linked from every page's footer."""

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core import mail
from playwright.sync_api import expect

from games.infra import queue
from tests.browser.pages import PHONE, fill_sign_up, log_in
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en": {
        "sent": "We sent a link to dora@example.com",
        "confirmed": "is confirmed",
        "privacy": "Privacy",
        "stored": "What is stored, and why",
        "closed": "Your account is closed",
        "delete": "Delete my account",
    },
    "de": {
        "sent": "Wir haben einen Link an dora@example.com geschickt",
        "confirmed": "ist bestätigt",
        "privacy": "Datenschutz",
        "stored": "Was gespeichert wird und warum",
        "closed": "Dein Konto ist gelöscht",
        "delete": "Mein Konto löschen",
    },
}


@pytest.fixture
def mail_at_once(monkeypatch):
    """The e-mails go out from the web process (as when the broker is away)."""
    monkeypatch.setattr(queue, "send_now", lambda task, *args: False)


def link_path(message) -> str:
    url = next(word for word in message.body.split() if "/email/confirm/" in word)
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


@pytest.mark.parametrize("language, device", [("en", {}), ("de", PHONE)])
def test_a_player_signs_up_and_confirms_the_address_by_its_link(
    open_browser, mail_at_once, language, device
):
    words = WORDS[language]
    session = open_browser(locale=language, **device)
    page = session.page
    session.goto("/signup/")
    fill_sign_up(page, "dora")
    expect(page.locator(".messages li")).to_contain_text(words["sent"])
    expect(page.locator("[data-confirm-banner]")).to_be_visible()
    (sent,) = mail.outbox
    assert sent.to == ["dora@example.com"]

    session.goto(link_path(sent))
    page.locator("[data-confirm-email]").click()
    expect(page.locator(".messages li")).to_contain_text(words["confirmed"])
    expect(page.locator("[data-email]")).to_contain_text("dora@example.com")
    expect(page.locator("[data-confirm-banner]")).to_have_count(0)
    assert User.objects.get(username="dora").email == "dora@example.com"


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_player_changes_the_address_exports_the_data_and_closes_the_account(
    open_browser, mail_at_once, alice, language
):
    words = WORDS[language]
    session = open_browser(locale=language, accept_downloads=True)
    page = log_in(session, "alice")
    session.goto("/settings/")
    page.fill("#id_email", "alice.new@example.com")
    page.fill("#id_password", PASSWORD)
    page.locator("[data-change-email] button").click()
    expect(page.locator("[data-pending-email]")).to_contain_text("alice.new@example.com")
    session.goto(link_path(mail.outbox[-1]))
    page.locator("[data-confirm-email]").click()
    expect(page.locator("[data-email]")).to_contain_text("alice.new@example.com")

    with page.expect_download() as download:
        page.locator("[data-export]").click()
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert data["profile"]["email"] == "alice.new@example.com"

    page.get_by_role("link", name=words["delete"]).click()
    page.fill("#id_password", PASSWORD)
    page.locator("main form button.danger").click()
    expect(page.locator(".messages li")).to_contain_text(words["closed"])
    expect(page.locator(".who")).to_have_count(0)
    assert not User.objects.get(pk=alice.pk).is_active


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_privacy_page_is_linked_from_the_footer_on_a_phone(open_browser, language):
    words = WORDS[language]
    session = open_browser(locale=language, **PHONE)
    page = session.page
    session.goto("/")
    page.get_by_role("link", name=words["privacy"]).click()
    expect(page.locator("h2").first).to_have_text(words["stored"])
    expect(page.locator("[data-privacy] code").first).to_have_text("sessionid")
