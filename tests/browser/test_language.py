"""Languages in headless Chromium: a German browser gets German pages, the footer switch
works for a visitor and is kept for a player, and the live countdown speaks German."""

import pytest
from playwright.sync_api import expect

from games.models import Profile
from tests.browser.test_match import log_in
from tests.test_match_services import make_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_footer_switch_and_a_german_browser(open_browser, alice, bob):
    session = open_browser(locale="de-DE")
    page = session.page
    session.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("link", name="Bestenliste")).to_be_visible()
    page.select_option("#language-choice", "en")
    page.get_by_role("button", name="Wechseln").click()
    expect(page.get_by_role("link", name="Leaderboard")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")

    match = make_match(alice, bob, time_control="1d")
    player = log_in(open_browser(), "alice")  # English browser, no saved language
    player.select_option("#language-choice", "de")
    player.get_by_role("button", name="Switch").click()
    expect(player.get_by_role("link", name="Einstellungen")).to_be_visible()
    assert Profile.objects.get(player=alice).language == "de"
    player.goto(player.url.rstrip("/") + match.get_absolute_url())
    expect(player.locator(".round")).to_contain_text("Runde 1 von 20")
    # the countdown, redrawn every second by the page's script, in German units
    expect(player.locator("time[data-countdown]").first).to_contain_text(" Std. ")
