"""Languages in headless Chromium: a German browser gets German pages, the footer switch
works for a visitor and is kept for a player, and the live countdown speaks German."""

import re

import pytest
from playwright.sync_api import expect

from games.models import Profile
from tests.browser.pages import log_in
from tests.factories import PASSWORD, make_match

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
    player.locator(".who").click()  # the account's menu
    expect(player.get_by_role("link", name="Einstellungen")).to_be_visible()
    assert Profile.objects.get(player=alice).language == "de"
    player.goto(player.url.rstrip("/") + match.get_absolute_url())
    expect(player.locator(".round")).to_contain_text("Runde 1 von 20")
    # the countdown, redrawn every second by the page's script, in German units
    expect(player.locator("time[data-countdown]").first).to_contain_text(" Std. ")


#: Words of English that German never uses: one of them on a German page is a text that
#: escaped translation.
ENGLISH = {
    "the",
    "your",
    "you",
    "and",
    "of",
    "with",
    "round",
    "rounds",
    "tile",
    "tiles",
    "level",
    "points",
    "score",
    "move",
    "moves",
    "confirm",
    "place",
    "rotate",
    "left",
    "right",
    "undo",
    "game",
    "games",
    "match",
    "puzzle",
    "daily",
    "settings",
    "log",
    "new",
    "play",
    "played",
    "leaderboard",
    "help",
    "player",
    "players",
    "over",
    "best",
    "after",
    "next",
    "previous",
    "replay",
    "turn",
    "to",
    "is",
    "at",
    "for",
    "from",
    "by",
    "this",
    "that",
    "today",
    "yesterday",
    "streak",
    "time",
    "rated",
    "casual",
    "home",
}


def english_on(page) -> dict[str, str]:
    """The English words a reader sees or hears on the page (its text, its title and the
    titles and labels of its elements), each with the text it was found in."""
    texts = page.evaluate(
        """() => {
            const body = document.body.cloneNode(true);  // notation is marked translate="no"
            body.querySelectorAll("[translate=no], script, style").forEach(e => e.remove());
            // ... or, on hover, data-notation
            const titled = "[title]:not([data-notation]), [aria-label], [placeholder], title";
            return [document.title, body.textContent,
                ...[...body.querySelectorAll(titled)]
                    .map(e => e.getAttribute("title") || e.getAttribute("aria-label")
                              || e.getAttribute("placeholder") || e.textContent)];
        }"""
    )
    found = {}
    for text in filter(None, texts):
        for word in re.finditer(r"[A-Za-zÄÖÜäöüß]+", text):
            if word.group().lower() in ENGLISH:
                found[word.group()] = text[max(0, word.start() - 40) : word.end() + 40]
    return found


@pytest.mark.worker
def test_a_german_player_finds_no_english_in_a_solo_game_and_a_puzzle(
    open_browser, celery_worker, alice
):
    from tests.browser.pages import answered, play_out

    session = open_browser(locale="de-DE")
    page = session.page
    session.goto("/accounts/login/")
    assert english_on(page) == {}
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Anmelden").click()
    expect(page.locator(".who")).to_have_text("alice")
    assert english_on(page) == {}

    page.get_by_role("button", name="Neues Solospiel").click()
    expect(page.locator(".round")).to_contain_text("Runde 1 von 20")
    assert english_on(page) == {}
    answered(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator(".round strong")).to_have_text("2")
    assert english_on(page) == {}
    play_out(page)
    expect(page.locator("[data-final-score]")).to_be_visible()
    assert english_on(page) == {}
    page.locator("[data-replay-link]").first.click()
    expect(page.locator("[data-replay-round]")).to_contain_text("Nach Runde 20 von 20")
    assert english_on(page) == {}

    session.goto("/")
    page.get_by_role("link", name="Das Rätsel des Tages").click()
    assert english_on(page) == {}
    page.get_by_role("button", name="Das heutige Rätsel spielen").click()
    expect(page.locator("svg .tile")).to_have_count(1)
    assert english_on(page) == {}
    play_out(page)
    expect(page.locator("[data-final-score]")).to_be_visible()
    assert english_on(page) == {}
