"""A player plays a bot from the home page in headless Chromium: the bot, run by the real
worker, answers each tile within seconds and its display shows up under the player's."""

import pytest
from playwright.sync_api import expect

from games.models import Match, Move
from tests.browser.pages import answered, log_in

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_player_plays_three_rounds_against_the_easy_bot(open_browser, celery_worker, alice):
    page = log_in(open_browser(), "alice")
    page.select_option("#bot-nmbr9", "easy")  # the home page's "Play a bot" for NMBR 9
    page.locator('[data-play-bot="nmbr9"]').click()
    expect(page.locator("[data-current]")).to_be_visible()
    match = Match.objects.get()
    bot = page.locator('[data-opponent="bot-easy"]')
    expect(bot.locator(".bot-badge")).to_have_text("bot")

    for round in (1, 2, 3):
        expect(page.locator(".round strong")).to_have_text(str(round), timeout=15_000)
        answered(page, lambda: page.keyboard.press("Enter"))
        # the page waits for the bot, then shows the next round by itself
    expect(page.locator(".round strong")).to_have_text("4", timeout=15_000)
    assert Move.objects.filter(match=match, seat__bot="easy").count() >= 3
    expect(bot).to_contain_text("3 tiles")
