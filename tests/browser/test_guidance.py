"""Guidance in the game, clicked through in headless Chromium: the rules at hand on a game
page, the tutorial offered before a first game against a bot, and what the end of a game
offers next."""

import pytest
from playwright.sync_api import expect

from games.models import Match, Seat
from tests.browser.pages import log_in
from tests.factories import finish_against_bot, make_match, play_to_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_first_bot_game_offers_the_tutorial_and_the_rules_stay_at_hand(open_browser, alice):
    page = log_in(open_browser(), "alice")
    page.select_option("#bot-nmbr9", "easy")
    page.locator('[data-play-bot="nmbr9"]').click()
    expect(page.locator("[data-current]")).to_be_visible()
    offer = page.locator("[data-learn-first]")
    expect(offer).to_be_visible()
    expect(offer.get_by_role("link", name="Learn first")).to_have_attribute("href", "/learn/nmbr9/")
    # "Play now" puts the offer away; the game was under way all along.
    offer.get_by_role("link", name="Play now").click()
    expect(offer).to_be_hidden()
    expect(page.locator("[data-current]")).to_be_visible()

    # The rules at hand: folded, unfolded with their essentials and the tutorial's link.
    rules = page.locator("[data-rules-at-hand]")
    essentials = rules.get_by_text("A tile scores its number times its level.")
    expect(essentials).to_be_hidden()
    rules.get_by_text("The rules of NMBR 9 in short").click()
    expect(essentials).to_be_visible()
    rules.locator("[data-tutorial-link]").click()
    expect(page.locator("h1")).to_have_text("Learn to play NMBR 9")

    # Learning first: back at the game, which waits for the player.
    page.go_back()
    expect(page.locator("[data-current]")).to_be_visible()
    page.locator("[data-learn-first-link]").click()
    expect(page.locator("#learn")).to_have_attribute("data-step", "1")


def test_the_end_of_a_bot_game_says_what_next(open_browser, alice):
    session = open_browser()
    page = log_in(session, "alice")
    page.select_option("#bot-nmbr9", "easy")
    page.locator('[data-play-bot="nmbr9"]').click()
    expect(page.locator("[data-current]")).to_be_visible()
    match = Match.objects.get()
    finish_against_bot(match, alice)
    page.reload()
    expect(page.get_by_text("Game over")).to_be_visible()
    offered = page.locator("[data-what-next]")
    expect(offered.get_by_role("link", name="Learn to play nmbrs!")).to_have_attribute(
        "href", "/learn/nmbrs/"
    )
    expect(offered.get_by_role("link", name="Play today's puzzle")).to_have_attribute(
        "href", "/daily/"
    )
    expect(page.locator("[data-learn-first]")).to_have_count(0)

    offered.get_by_role("button", name="A new game against the same bot").click()
    expect(page.locator("[data-current]")).to_be_visible()
    again = Match.objects.latest("id")
    assert again.pk != match.pk and page.url.endswith(again.get_absolute_url())
    assert Seat.objects.get(match=again, index=1).bot == "easy"
    # Not the first game any more: no tutorial offered.
    expect(page.locator("[data-learn-first]")).to_have_count(0)


def test_the_end_of_a_match_offers_a_new_one_with_the_same_players(open_browser, alice, bob):
    match = make_match(alice, bob, pace="free", time_control="3d", rated=False)
    play_to_end(match, [alice, bob])
    session = open_browser()
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    offered = page.locator("[data-what-next]")
    offered.get_by_role("link", name="New match with the same players and options").click()
    expect(page.locator('input[name="invite"]')).to_have_value("bob")
    expect(page.locator('select[name="time_control"]')).to_have_value("3d")
    expect(page.locator('input[name="pace"][value="free"]')).to_be_checked()
    expect(page.locator('input[name="rated"]')).not_to_be_checked()
    page.locator("form[data-conditions] button[type=submit]").click()
    expect(page.locator("#play")).to_be_visible()
    again = Match.objects.latest("id")
    assert again.pk != match.pk and again.status == Match.Status.WAITING
    assert (again.players, again.rated, again.options["pace"]) == (2, False, "free")
    assert again.time_per_move == match.time_per_move
