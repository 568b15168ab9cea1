"""A visitor plays at once from the home page, as a guest, and keeps the games on sign-up;
a player's home page shows their matches with a picture of each: in headless Chromium, on a
desktop and a phone, in English and German."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from games import services
from games.models import DailyResult, Match
from tests.browser.pages import PHONE, answered, fill_sign_up, log_in
from tests.factories import a_running_match, todays_daily

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en": {"guest": "Guest", "keep": "Sign up to keep your games", "sign_up": "Sign up"},
    "de": {"guest": "Gast", "keep": "Registrieren und Spiele behalten", "sign_up": "Registrieren"},
}


@pytest.mark.worker
@pytest.mark.parametrize("language", ["en", "de"])
def test_a_visitor_plays_a_bot_and_the_daily_signs_up_and_finds_both_on_the_profile(
    open_browser, celery_worker, language
):
    todays_daily()
    words = WORDS[language]
    session = open_browser(locale=language)
    page = session.page
    session.goto("/")
    expect(page.locator("[data-game-card]")).to_have_count(2)
    expect(
        page.locator("[data-game-card] .game-picture svg, [data-game-card] .nmbrs-picture")
    ).to_have_count(2)

    # A bot of NMBR 9, at once: the guest places a tile, the bot answers.
    page.select_option("#bot-nmbr9", "easy")
    page.locator('[data-play-bot="nmbr9"]').click()
    expect(page.locator("[data-guest]")).to_have_text(words["guest"])
    expect(page.get_by_role("link", name=words["keep"])).to_be_visible()
    answered(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator(".round strong")).to_have_text("2", timeout=15_000)
    guest = User.objects.get(username__startswith="guest-")
    bot_match = Match.objects.get(created_by=guest, kind=Match.Kind.MATCH)

    # Today's daily puzzle, played to its end with the page's default spots.
    page.goto(page.url.split("/game/")[0] + "/")
    page.locator("[data-play-daily]").click()
    for _ in range(19):
        answered(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator("[data-final-score]")).to_be_visible()
    daily = Match.objects.get(created_by=guest, daily=True)
    assert not DailyResult.objects.exists()  # a guest's attempt counts once it has an account

    page.get_by_role("link", name=words["keep"]).click()
    expect(page.locator("[data-guest-note]")).to_be_visible()
    fill_sign_up(page, "newcomer")
    account = User.objects.get(username="newcomer")
    assert DailyResult.objects.get(player=account).match_id == daily.pk

    page.locator(".who").click()  # the account's menu
    page.locator("[data-nav-profile]").click()
    expect(
        page.locator(f'[data-current-games] a[href="{bot_match.get_absolute_url()}"]')
    ).to_be_visible()
    expect(page.locator(f'a[href="{daily.get_absolute_url()}"]')).to_be_visible()
    expect(page.locator('[data-stat="streak"]')).to_have_text("1")


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_visitor_on_a_phone_starts_a_solo_game_from_the_home_page(open_browser, language):
    session = open_browser(locale=language, **PHONE)
    page = session.page
    session.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    cards = page.locator("[data-game-card]")
    expect(cards).to_have_count(2)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width  # nothing makes the page scroll sideways
    cramped = page.evaluate(
        """() => [...document.querySelectorAll(".nmbrs-card")].filter(card => {
            const [outer, inner] = [card, card.querySelector("b")]
                .map(e => e.getBoundingClientRect());
            return inner.left - outer.left < 4 || outer.right - inner.right < 4;
        }).map(card => card.textContent)"""
    )
    assert cramped == []  # a joker's "J=14" keeps clear of its card's border
    page.locator('[data-learn="nmbrs"]').click()  # learning first: nothing is stored
    expect(page.locator(".lesson")).to_be_visible()
    assert not User.objects.exists()
    page.go_back()
    page.locator('[data-play-solo="nmbr9"]').click()
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
    expect(page.locator("[data-guest]")).to_have_text(WORDS[language]["guest"])


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_dashboard_pictures_each_match_and_accepts_an_invitation(
    open_browser, alice, bob, carol, language, screen
):
    todays_daily()
    a_running_match(alice, bob, "nmbr9", theirs=True)
    a_running_match(alice, carol, "nmbrs", theirs=False)
    invitation = services.create_match(
        bob, players=2, time_control="1d", rated=True, invite=["alice"], options={"pace": "free"}
    )
    options = {**(PHONE if screen == "phone" else {}), "locale": language}
    page = log_in(open_browser(**options), "alice")
    expect(page.locator("[data-your-move] .nmbrs-glance")).to_have_count(1)
    expect(page.locator("[data-waiting-matches] .match-card svg.thumb")).to_have_count(1)
    expect(page.locator("[data-your-move] time[data-countdown]")).to_have_count(1)
    for game in ("nmbr9", "nmbrs"):
        expect(page.locator(f'[data-play-bot="{game}"]')).to_be_visible()
    expect(page.locator("[data-play-daily]")).to_be_visible()
    if screen == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator(f'[data-invitation="{invitation.pk}"] [data-accept]').click()
    page.wait_for_url(f"**{invitation.get_absolute_url()}")
    invitation.refresh_from_db()
    assert invitation.status == Match.Status.ACTIVE
