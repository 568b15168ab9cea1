"""Finding your games in headless Chromium: the home list and the tab title update by
themselves, and "next game" leads from one match waiting for the player to the next."""

import re
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from games import services
from tests.browser.pages import answered, log_in
from tests.factories import make_match, play, play_to_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_home_list_and_the_title_follow_the_matches_waiting_for_you(open_browser, alice, bob):
    first = make_match(alice, bob, seed=3)
    second = make_match(alice, bob, seed=4)
    play(first, alice)
    session = open_browser()
    page = log_in(session, "alice")
    session.goto("/")
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    mine = page.locator(".your-move")
    expect(mine.locator(f'a[href="{second.get_absolute_url()}"]')).to_have_count(1)

    play(first, bob)  # the next round of the first match: alice's move again
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(mine.locator(f'a[href="{first.get_absolute_url()}"]')).to_have_count(1)
    expect(page).to_have_title(re.compile(r"^\(2\) "))

    mine.locator(f'a[href="{second.get_absolute_url()}"]').first.click()
    page.get_by_role("link", name="Next game where it's your move").click()
    expect(page).to_have_url(re.compile(rf"/game/{first.pk}/$"))
    expect(page).to_have_title(re.compile(r"^\(2\) "))
    answered(page, lambda: page.keyboard.press("Enter"))  # her tile here: one match left
    expect(page).to_have_title(re.compile(r"^\(1\) "))


def test_times_show_in_the_browsers_time_zone_with_utc_on_hover(open_browser, alice, bob):
    from games.models import Match

    match = make_match(alice, bob, seed=5)
    play_to_end(match, [alice, bob])
    services.rate_match(match.pk)
    finished = Match.objects.get(pk=match.pk).finished
    session = open_browser(timezone_id="Asia/Kolkata")  # UTC+5:30
    page = log_in(session, "alice")
    session.goto("/@/alice/")
    shown = page.locator("ul.games time").first
    local = finished.astimezone(ZoneInfo("Asia/Kolkata"))
    hour = local.hour % 12 or 12  # in the page's language, English: 11/24/26, 11:52 PM
    written = rf"{local.month}/{local.day}/{local:%y}, {hour}:{local:%M}\W{local:%p}"
    expect(shown).to_have_text(re.compile(written))
    utc_hour = finished.hour % 12 or 12
    expect(shown).to_have_attribute("title", re.compile(rf" {utc_hour}:{finished:%M} .* UTC$"))
    day = f"{finished.month}/{finished.day}/{finished:%Y}"  # the rating chart: dated
    expect(page.locator("[data-date-tick]")).to_have_text([day])
    point = page.locator("[data-rating-point] title")
    expect(point).to_have_text(re.compile(rf"^1\d{{3}} after the match of {day}$"))

    session.goto(f"/game/{make_match(alice, bob, seed=6).pk}/")
    countdown = page.locator("time[data-countdown]")
    expect(countdown).to_have_attribute("title", re.compile(r"^\d+/\d+/\d\d, .* \(.* UTC\)$"))
    session.goto("/notifications/")
    notified = page.locator('ul.notifications time[data-local="title"]').first
    # its words stay ("just now", within a minute of the move): the local time is on hover
    expect(notified).to_have_text("just now")
    expect(notified).to_have_attribute("title", re.compile(r"^\d+/\d+/\d\d, .* \(.* UTC\)$"))
