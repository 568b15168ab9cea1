"""The forms that start a game, in Chromium: controls the rules refuse with the other
choices are disabled as the choices change, the solo form hides what a solo game has no use
for, and labels sit beside their controls; on a desktop and a phone, in English and German."""

import pytest
from playwright.sync_api import expect

from games.models import Match
from tests.browser.pages import PHONE, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def beside(page, control: str, label: str) -> bool:
    """Whether the control and its label share a line."""
    a = page.locator(control).bounding_box()
    b = page.locator(label).bounding_box()
    return abs((a["y"] + a["height"] / 2) - (b["y"] + b["height"] / 2)) < max(
        a["height"], b["height"]
    )


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_new_match_form_offers_what_goes_together(open_browser, alice, language, screen):
    options = {**(PHONE if screen == "phone" else {}), "locale": language}
    page = log_in(open_browser(**options), "alice")
    page.goto(page.url.rstrip("/") + "/match/new/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("#id_players option")).to_have_count(5)  # 2-6 players
    assert beside(page, "#id_rated", "label[for=id_rated]")
    assert beside(page, "#id_players", "label[for=id_players]")

    two_of_three = page.locator("input[name=variant][value=two_of_three]")
    level_to_level = page.locator("input[name=variant][value=level_to_level]")
    two_of_three.check()
    expect(page.locator("#id_removed")).to_be_disabled()
    page.select_option("#id_players", "5")
    expect(two_of_three).to_be_disabled()
    expect(level_to_level).to_be_disabled()
    expect(page.locator("input[name=variant][value=base]")).to_be_checked()
    expect(page.locator("#id_removed")).to_be_enabled()
    page.select_option("#id_players", "3")
    expect(two_of_three).to_be_enabled()
    page.locator("input[name=pace][value=free]").check()
    expect(level_to_level).to_be_disabled()
    expect(two_of_three).to_be_enabled()

    specials = page.locator("input[name=specials]")
    expect(specials.first).to_be_disabled()
    page.select_option("#id_breaking", "chosen")
    expect(specials.first).to_be_enabled()
    specials.first.check()
    two_of_three.check()
    page.locator("form[data-conditions] button[type=submit]").click()
    page.wait_for_url("**/game/*/")
    match = Match.objects.get()
    assert match.players == 3
    assert match.options["variant"] == "two_of_three" and match.options["pace"] == "free"
    assert match.options["specials"] == ["move"] and match.options["removed"] == 0

    page.goto(page.url.split("/game/")[0] + "/match/new/?game=nmbrs")
    expect(page.locator("#id_players option")).to_have_count(7)  # 2-8 players


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_solo_form_shows_the_pace_and_the_word_on_bots_only_for_a_bot(
    open_browser, alice, language
):
    page = log_in(open_browser(locale=language), "alice")
    page.goto(page.url.rstrip("/") + "/solo/new/")
    expect(page.locator("[data-bot-hint]")).to_be_hidden()
    expect(page.locator("input[name=pace]").first).to_be_hidden()
    page.select_option("#id_bot", "easy")
    expect(page.locator("[data-bot-hint]")).to_be_visible()
    expect(page.locator("input[name=pace]").first).to_be_visible()
    page.select_option("#id_bot", "")
    expect(page.locator("[data-bot-hint]")).to_be_hidden()
    page.locator("form[data-conditions] button[type=submit]").click()
    expect(page.locator("[data-own-board]")).to_be_visible()
    assert Match.objects.get().kind == Match.Kind.SOLO
