"""Every page on a phone (390 CSS px wide) in headless Chromium: nothing makes the page
scroll sideways, and no page has a JavaScript error."""

import itertools
import re

import pytest
from playwright.sync_api import expect

from games import services
from games.services.features import puzzles
from tests.browser.pages import PHONE, log_in
from tests.factories import make_match, play_to_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_no_page_scrolls_sideways_on_a_phone(open_browser, alice, bob):
    finished = make_match(alice, bob, seed=5)
    play_to_end(finished, [alice, bob])
    services.rate_match(finished.pk)
    running = make_match(alice, bob, seed=6)
    solo = services.start_solo(alice, seed=4)
    puzzle = puzzles.publish_daily()
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    session = open_browser(**PHONE)
    page = log_in(session, "alice")
    pages = [
        "/",
        running.get_absolute_url(),
        solo.get_absolute_url(),
        finished.get_absolute_url(),
        f"/game/{finished.pk}/replay/?round=7",
        "/leaderboard/",
        "/leaderboard/?board=streaks",
        "/leaderboard/?board=solo&game=nmbr9",
        "/leaderboard/?game=nmbr9&pool=solving",
        "/@/alice/",
        "/@/bob/",
        "/daily/",
        f"/puzzle/{puzzle.pk}/",
        f"/challenge/offer/{offer.pk}/",
        "/daily/archive/",
        "/challenge/new/",
        "/lobby/",
        "/match/new/",
        "/solo/new/",
        "/play/",
        "/notifications/",
        "/settings/",
        "/help/nmbr9/",
        "/help/nmbrs/",
        "/learn/",
        "/learn/nmbr9/?placed=9@0,0r0",
        "/learn/nmbrs/?moves=take&pick=12&pick=14&pick=16",
    ]
    wide = {}
    for path in pages:
        response = session.goto(path)
        assert response is not None and response.status < 400, path
        expect(page.locator("main")).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide[path] = width
    assert wide == {}


def test_a_long_german_heading_stays_inside_its_card_on_a_phone(open_browser, alice):
    page = log_in(open_browser(locale="de", **PHONE), "alice")
    page.goto(page.url.rstrip("/") + "/notifications/")
    expect(page.locator("h1")).to_have_text("Benachrichtigungen")
    heading, card = (
        page.locator(selector).first.bounding_box() for selector in ("h1", "main .card")
    )
    assert heading["x"] + heading["width"] <= card["x"] + card["width"]
    widest = page.evaluate("document.querySelector('h1').scrollWidth")
    assert widest <= page.evaluate("document.querySelector('h1').clientWidth")


def test_german_results_and_figures_fit_a_phone_which_is_not_told_about_keys(
    open_browser, alice, bob
):
    """German words are long ("Punktestand", "Wertung in Rätsel-Herausforderungen"): the
    results of a match and a profile's figures stay within a phone's width; a touch screen
    is not told about keys, a desktop is."""
    finished = make_match(alice, bob, seed=5)
    play_to_end(finished, [alice, bob])
    services.rate_match(finished.pk)
    solo = services.start_solo(alice, seed=4)
    phone = open_browser(locale="de", **PHONE)
    page = log_in(phone, "alice")
    for path in (finished.get_absolute_url(), "/@/alice/"):
        phone.goto(path)
        expect(page.locator("main")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    phone.goto(solo.get_absolute_url())
    expect(page.locator(".keys-hint").first).to_be_hidden()
    desktop = open_browser(locale="de")
    log_in(desktop, "alice")
    desktop.goto(solo.get_absolute_url())
    expect(desktop.page.locator(".keys-hint").first).to_be_visible()


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_header_keeps_to_two_rows_and_its_account_menu_opens_and_closes(
    open_browser, alice, language
):
    page = log_in(open_browser(locale=language, **PHONE), "alice")
    words = {"en": ("Your profile", "Settings"), "de": ("Dein Profil", "Einstellungen")}[language]
    tops = sorted(
        page.evaluate(
            """() => [...document.querySelectorAll('.site-header nav > *')]
                .map((item) => item.getBoundingClientRect().top)"""
        )
    )
    rows = 1 + sum(later - earlier > 10 for earlier, later in itertools.pairwise(tops))
    assert rows <= 2, tops
    menu = page.locator("[data-account-menu] .menu")
    expect(menu).to_be_hidden()
    # by keyboard: the name opens it, Escape closes it and leaves the focus on the name
    page.locator(".who").focus()
    page.keyboard.press("Enter")
    expect(menu.get_by_role("link", name=words[0])).to_be_visible()
    expect(menu.get_by_role("link", name=words[1])).to_be_visible()
    box = menu.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    assert page.evaluate("document.activeElement.classList.contains('who')")
    # by touch: a tap elsewhere closes it; its link leads to the profile
    page.locator(".who").click()
    expect(menu).to_be_visible()
    page.mouse.click(3, 700)  # the page beside its cards
    expect(menu).to_be_hidden()
    page.locator(".who").click()
    menu.get_by_role("link", name=words[0]).click()
    expect(page).to_have_url(re.compile(r"/@/alice/$"))
