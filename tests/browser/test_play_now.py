"""Play now in headless Chromium: two players who click it for the same game from the home
page are in one match within seconds, whatever their language, screen or account; a player
left alone is offered a bot."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from games.models import Match
from games.services.features import pools
from tests.browser.pages import PHONE, log_in, small_controls

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IN_A_MATCH = re.compile(r"/game/\d+/$")


def play_now(session, game: str, speed: str = "15s"):
    """From the home page: Play now on ``game``'s card, then a speed (two clicks)."""
    page = session.page
    session.goto("/")
    page.locator(f'[data-quick-pair="{game}"]').click()
    page.locator(f'[data-pool="{game}"] [data-speed="{speed}"]').click()
    return page


def test_an_account_and_a_german_guest_on_a_phone_meet_in_one_nmbr9_match(open_browser, alice):
    account = open_browser()
    log_in(account, "alice")
    page = play_now(open_browser(locale="de", **PHONE), "nmbr9")
    expect(page.locator("[data-pool-wait]")).to_be_visible()
    expect(page.locator("[data-pool-count]")).to_have_text("1 Spieler wartet in diesem Pool.")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert small_controls(page) == []
    other = play_now(account, "nmbr9")
    expect(other).to_have_url(IN_A_MATCH, timeout=5_000)
    expect(page).to_have_url(other.url, timeout=5_000)
    match = Match.objects.get()
    assert match.realtime and not match.rated  # a guest plays casual
    expect(page.locator("[data-guest]")).to_have_text("Gast")


def test_two_accounts_meet_in_one_rated_nmbrs_match(open_browser, alice, bob):
    first, second = open_browser(), open_browser()
    log_in(first, "alice")
    log_in(second, "bob")
    waiting = play_now(first, "nmbrs", "60s")
    expect(waiting.locator("[data-pool-wait]")).to_be_visible()
    other = play_now(second, "nmbrs", "60s")
    expect(other).to_have_url(IN_A_MATCH, timeout=5_000)
    expect(waiting).to_have_url(other.url, timeout=5_000)
    match = Match.objects.get()
    assert match.game == "nmbrs" and match.rated and match.players == 2


def test_a_guest_left_alone_is_offered_a_bot(open_browser, monkeypatch):
    monkeypatch.setattr(pools, "BOT_AFTER", timedelta(seconds=1))  # the server is this process
    page = play_now(open_browser(), "nmbr9", "30s")
    expect(page.locator("[data-pool-wait]")).to_be_visible()
    expect(page.locator('[data-bot-offer="medium"]')).to_be_visible()
    # the two choices side by side, their words on one line
    words = """(selector) => {
      const range = document.createRange();
      range.selectNodeContents(document.querySelector(selector));
      const box = range.getBoundingClientRect();
      return [box.top, box.bottom];
    }"""
    bot, keep = (page.evaluate(words, s) for s in ("[data-play-pool-bot]", "[data-keep-waiting]"))
    assert abs(bot[0] - keep[0]) < 1 and abs(bot[1] - keep[1]) < 1, (bot, keep)
    page.locator("[data-keep-waiting]").click()
    expect(page.locator("[data-keep-waiting]")).to_have_count(0)
    page.locator("[data-play-pool-bot]").click()
    expect(page).to_have_url(IN_A_MATCH)
    match = Match.objects.get()
    assert match.realtime and match.seats.filter(bot="medium").exists()


def test_a_german_account_alone_in_a_pool_of_3_plays_the_bot_and_sees_its_rating(
    open_browser, alice, monkeypatch
):
    monkeypatch.setattr(pools, "BOT_AFTER", timedelta(seconds=1))  # the server is this process
    session = open_browser(locale="de-DE", **PHONE)
    page = log_in(session, "alice")
    session.goto("/play/")
    pool = page.locator('[data-pool="nmbrs"]')
    pool.get_by_label("3").check()
    pool.locator('[data-speed="30s"]').click()
    offer = page.locator('[data-bot-offer="medium"]')
    expect(offer).to_contain_text("eine Partie zu zweit gegen einen Bot")
    expect(offer).to_contain_text("Partien gegen Bots werden nicht gewertet.")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    # on a phone the two choices stand one above the other, each as wide as the other
    bot, keep = (
        offer.locator(s).bounding_box() for s in ("[data-play-pool-bot]", "[data-keep-waiting]")
    )
    assert bot["width"] == keep["width"] and keep["y"] >= bot["y"] + bot["height"], (bot, keep)
    offer.locator("[data-play-pool-bot]").click()
    expect(page).to_have_url(IN_A_MATCH)
    match = Match.objects.get()
    assert match.seats.count() == 2 and not match.rated
