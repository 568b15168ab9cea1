"""Friends in headless Chromium, two or three players at once: following from a profile,
a match made with an invitation link and joined by it (an account and a visitor), blocking
and the invitation it refuses, and the new pages on a phone in German."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from games import services
from games.models import InviteLink, Match
from games.services.features import blocks, follows
from tests.browser.pages import PHONE, log_in
from tests.factories import make_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIPBOARD = {"permissions": ["clipboard-read", "clipboard-write"]}


def answered_with(session, status: int) -> None:
    """The page came with ``status``, as the test meant: the browser reports it, once."""
    reported = [e for e in session.errors if f"status of {status}" in e]
    assert len(reported) == 1, session.errors
    session.errors.remove(reported[0])


def test_follow_then_invite_by_link_and_the_match_starts(open_browser, alice, bob):
    bob_session = open_browser()
    bob_page = log_in(bob_session, "bob")
    bob_session.goto("/@/alice/")
    bob_page.get_by_role("button", name="Follow").click()
    expect(bob_page.get_by_role("button", name="Unfollow")).to_be_visible()
    expect(bob_page.locator("[data-followers]")).to_have_text("1 follower")

    alice_session = open_browser(**CLIPBOARD)
    alice_page = log_in(alice_session, "alice")
    alice_session.goto("/notifications/")
    expect(alice_page.locator("[data-news]")).to_contain_text("bob follows you.")
    alice_session.goto("/match/new/")
    alice_page.select_option("#id_players", "3")
    alice_page.uncheck("#id_open")
    alice_page.check("#id_link")
    alice_page.get_by_role("button", name="Create the match").click()
    expect(alice_page.get_by_text("Waiting for players")).to_be_visible()
    match = Match.objects.get()
    token = InviteLink.objects.get(match=match).token
    field = alice_page.locator("#invite-link")
    expect(field).to_have_value(f"{alice_session.base_url}/join/{token}/")
    alice_page.get_by_role("button", name="Copy").click()
    expect(alice_page.locator("[data-copy]")).to_have_text("Copied")
    link = alice_page.evaluate("navigator.clipboard.readText()")
    assert link == field.input_value()

    bob_page.goto(link)
    expect(bob_page.locator("[data-invited-to]")).to_have_text(
        "alice invites you to a 3-player NMBR 9 match."
    )
    bob_page.get_by_role("button", name="Join the match").click()
    expect(bob_page.locator('[data-seat="bob"]')).to_be_visible()
    assert match.seats.count() == 2  # a GET takes nothing, the button did

    visitor = open_browser()
    visitor.page.goto(link)
    expect(visitor.page.locator("[data-as-guest]")).to_contain_text("You play as a guest")
    visitor.page.get_by_role("button", name="Join the match").click()
    expect(visitor.page.locator("[data-current]")).to_be_visible()
    expect(visitor.page.locator("[data-guest]")).to_be_visible()
    # The others' pages notice the start by themselves.
    for page in (alice_page, bob_page):
        expect(page.locator("[data-current]")).to_be_visible(timeout=12_000)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and not match.rated

    bob_session.goto("/following/")
    followed = bob_page.locator('[data-followed="alice"]')
    expect(followed.locator("[data-playing] a")).to_have_attribute("href", match.get_absolute_url())
    other = open_browser()
    response = other.goto(f"/join/{token}/")
    assert response.status == 410
    expect(other.page.locator("[data-link-gone]")).to_contain_text("The match has started")
    answered_with(other, 410)


def test_block_then_the_blocked_player_cannot_invite(open_browser, alice, bob):
    alice_session = open_browser()
    alice_page = log_in(alice_session, "alice")
    alice_session.goto("/@/bob/")
    alice_page.get_by_text("Block…").click()
    alice_page.get_by_role("button", name="Block bob").click()
    expect(alice_page.locator("[data-blocked]")).to_have_text("You have blocked this player.")
    assert blocks.blocks(alice.pk, bob.pk)

    bob_session = open_browser()
    bob_page = log_in(bob_session, "bob")
    bob_session.goto("/match/new/")
    bob_page.locator("#id_invite").press_sequentially("al")
    suggestion = bob_page.locator('.suggestions a[data-name="alice"]')
    expect(suggestion).to_be_visible()
    suggestion.click()
    expect(bob_page.locator("#id_invite")).to_have_value("alice, ")
    bob_page.uncheck("#id_open")
    bob_page.get_by_role("button", name="Create the match").click()
    expect(bob_page.locator("p.error")).to_have_text("alice cannot be invited.")
    answered_with(bob_session, 400)
    assert not Match.objects.exists()

    alice_session.goto("/settings/")
    alice_page.locator('[data-blocked="bob"]').get_by_role("button", name="Unblock").click()
    expect(alice_page.locator("[data-blocked-none]")).to_be_visible()
    assert not blocks.blocks(alice.pk, bob.pk)


def test_the_new_pages_fit_a_phone_in_german(open_browser, alice, bob, carol):
    follows.follow(alice, bob)
    make_match(alice, bob, time_control="1d")
    blocks.block(alice, carol)
    waiting = services.create_match(alice, players=2, time_control="1d", rated=True, link=True)
    link = f"/join/{InviteLink.objects.get(match=waiting).token}/"
    alice_session = open_browser(locale="de", **PHONE)
    page = log_in(alice_session, "alice")
    pages = {
        "/following/": "Ich folge",
        "/players/?q=b": "Spieler finden",
        "/@/bob/": "Nicht mehr folgen",
        "/settings/": "Blockierte Spieler",
        waiting.get_absolute_url(): "Einladungslink",
    }
    for path, words in pages.items():
        response = alice_session.goto(path)
        assert response is not None and response.status == 200, path
        expect(page.locator("main")).to_contain_text(words)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    alice_session.goto("/following/")
    page.locator("#player-search").press_sequentially("bo")
    expect(page.locator('#player-results a[data-name="bob"]')).to_be_visible()

    bob_session = open_browser(locale="de", **PHONE)
    bob_page = log_in(bob_session, "bob")
    bob_session.goto(link)
    expect(bob_page.locator("[data-invited-to]")).to_have_text(
        "alice lädt dich zu einer Partie NMBR 9 mit 2 Spielern ein."
    )
    expect(bob_page.get_by_role("button", name="Der Partie beitreten")).to_be_visible()
    assert bob_page.evaluate("document.documentElement.scrollWidth") <= 390
    bob_session.goto("/match/new/")
    bob_page.locator("#id_invite").press_sequentially("ali")
    expect(bob_page.locator('.suggestions a[data-name="alice"]')).to_be_visible()
    assert bob_page.evaluate("document.documentElement.scrollWidth") <= 390


def test_following_goes_page_by_page_on_a_phone_in_german(open_browser, alice, monkeypatch):
    monkeypatch.setattr(follows, "FOLLOWED_PER_PAGE", 2)
    for name in ("dora", "erin", "finn"):
        follows.follow(alice, User.objects.create_user(name, f"{name}@example.com", "pw"))
    session = open_browser(locale="de", **PHONE)
    page = log_in(session, "alice")
    session.goto("/following/")
    followed = page.locator("[data-followed]")
    expect(followed).to_have_count(2)
    expect(page.locator("nav.pager")).to_contain_text("Seite 1 von 2")
    page.get_by_role("link", name="Weiter").click()
    expect(followed).to_have_count(1)
    expect(followed.first).to_have_attribute("data-followed", "finn")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_role("link", name="Zurück").click()
    expect(followed.first).to_have_attribute("data-followed", "dora")
