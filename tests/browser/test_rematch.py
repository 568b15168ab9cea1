"""A rematch at the end of a real-time match: both players click Rematch, each seeing the
other's answer live, and both pages land on the new match by themselves; or one offers, the
other declines, and the first sees it on their page as it happens."""

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match, Profile
from tests.browser.pages import PHONE, following, log_in, still_the_same_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_both_accept_and_both_pages_open_the_rematch(open_asgi_browser, alice, bob):
    Profile.objects.update_or_create(player=bob, defaults={"language": "de"})
    match = services.start_realtime([alice, bob], game="nmbr9", speed="15s")
    services.resign(match.pk, bob)
    alice_session = open_asgi_browser()
    log_in(alice_session, "alice")
    bob_session = open_asgi_browser(**PHONE)  # in German, on a phone
    log_in(bob_session, "bob")
    bob_page, _ = following(bob_session, match.get_absolute_url())
    alice_page = alice_session.page
    alice_session.goto(match.get_absolute_url())
    alice_page.locator("[data-rematch-accept]").click()
    expect(alice_page.locator("[data-rematch-waiting]")).to_have_text("Waiting for the others…")
    expect(bob_page.locator("[data-rematch-accepted]")).to_have_text(
        "alice möchte eine Revanche (1 von 2)", timeout=3000
    )
    expect(alice_page.locator("html")).to_have_attribute("data-live", "open")
    bob_page.locator("[data-rematch-accept]").click()
    started = Match.objects.get(rematch_of=match)
    here = re.compile(re.escape(started.get_absolute_url()) + "$")
    expect(bob_page).to_have_url(here)
    expect(alice_page).to_have_url(here, timeout=3000)
    for page in (alice_page, bob_page):
        expect(page.locator("[data-current]")).to_be_visible()  # a tile to place


def test_one_offers_the_other_declines_and_the_first_sees_it_live(open_asgi_browser, alice, bob):
    Profile.objects.update_or_create(player=alice, defaults={"language": "de"})
    match = services.start_realtime([alice, bob], game="nmbrs", speed="30s")
    services.resign(match.pk, alice)
    alice_session = open_asgi_browser()  # in German
    log_in(alice_session, "alice")
    bob_session = open_asgi_browser()
    log_in(bob_session, "bob")
    alice_page, _ = following(alice_session, match.get_absolute_url())
    bob_page, _ = following(bob_session, match.get_absolute_url())
    alice_page.locator("[data-rematch-accept]").click()
    expect(alice_page.locator("[data-rematch-waiting]")).to_be_visible()
    expect(alice_page.locator("html")).to_have_attribute("data-live", "open")
    alice_page.evaluate("() => { window.notReloaded = true; }")  # the page the click led to
    decline = bob_page.locator("[data-rematch-decline]")
    expect(decline).to_have_text("Decline", timeout=3000)
    decline.click()
    expect(bob_page.locator("[data-rematch-declined]")).to_have_text("You declined the rematch.")
    expect(bob_page.locator("[data-rematch-accept]")).to_have_count(0)
    expect(alice_page.locator("[data-rematch-declined]")).to_have_text(
        "bob hat die Revanche abgelehnt.", timeout=3000
    )
    expect(alice_page.locator("[data-rematch-withdraw]")).to_have_count(0)
    assert still_the_same_page(alice_page)
    assert not Match.objects.filter(rematch_of=match).exists()
