"""The pages a visitor, a player and a spectator open, as three readers see them: in English
on a desktop in the light theme, in German on a phone in the dark theme, and at 200% zoom
(a 1280 px window shows 640 CSS px). axe-core finds no WCAG 2.2 A/AA violation on any of
them (every browser test checks its pages: tests/browser/accessibility.js); here besides:
every control is at least 24 x 24 px on a phone, nothing scrolls sideways, the keyboard's
focus is always visible, and nothing moves for a reader who asks for less motion."""

import pytest
from playwright.sync_api import expect

from games import services
from games.services.features import puzzles
from tests.browser.pages import PHONE, checked, log_in, small_controls
from tests.factories import make_match, nmbrs_match, play_to_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

READERS = {
    "english-desktop-light": {"locale": "en-GB", "color_scheme": "light"},
    "german-phone-dark": {"locale": "de-DE", "color_scheme": "dark", **PHONE},
    "zoomed-200-percent": {
        "locale": "en-GB",
        "viewport": {"width": 640, "height": 400},
        "device_scale_factor": 2,
        "reduced_motion": "reduce",
    },
}


def world(alice, bob, carol):
    """Something on every page: finished and running matches of both games, a solo game,
    a bot game, the daily puzzle and a challenge; carol watches."""
    finished = make_match(alice, bob, seed=5)
    play_to_end(finished, [alice, bob])
    services.rate_match(finished.pk)
    running = make_match(alice, bob, seed=6)
    cards = nmbrs_match(alice, bob)
    solo = services.start_solo(alice, seed=4)
    bot = services.start_against_bot(alice, "easy")
    puzzle = puzzles.publish_daily()
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    visitor = [
        "/",
        "/lobby/",
        "/leaderboard/",
        "/leaderboard/?board=streaks",
        "/learn/",
        "/learn/nmbr9/",
        "/learn/nmbrs/",
        "/help/nmbr9/",
        "/help/nmbrs/",
        "/daily/",
        "/daily/archive/",
        "/privacy/",
        "/accounts/login/",
        "/signup/",
        "/@/alice/",
        finished.get_absolute_url(),
        f"/game/{finished.pk}/replay/?round=7",
    ]
    player = [
        "/",
        running.get_absolute_url(),
        cards.get_absolute_url(),
        solo.get_absolute_url(),
        bot.get_absolute_url(),
        f"/puzzle/{puzzle.pk}/",
        f"/challenge/offer/{offer.pk}/",
        "/challenge/new/",
        "/match/new/",
        "/solo/new/",
        "/notifications/",
        "/settings/",
        "/following/",
        "/players/",
        "/@/bob/",
    ]
    spectator = [running.get_absolute_url(), cards.get_absolute_url(), "/lobby/"]
    return {None: visitor, "alice": player, "carol": spectator}


@pytest.mark.parametrize("reader", READERS)
def test_every_page_passes_for_every_reader(open_browser, alice, bob, carol, reader):
    options = READERS[reader]
    narrow = options["viewport"]["width"] if "viewport" in options else None
    findings: list[str] = []
    for who, paths in world(alice, bob, carol).items():
        session = open_browser(**options)
        page = log_in(session, who) if who else session.page
        for path in paths:
            response = session.goto(path)
            assert response is not None and response.status < 400, (who, path)
            expect(page.locator("main")).to_be_visible()
            checked(page)
            if narrow:
                width = page.evaluate("document.documentElement.scrollWidth")
                if width > narrow:
                    findings.append(f"{path} ({who}) is {width} px wide")
                findings += [f"{path} ({who}): {small}" for small in small_controls(page)]
            if options.get("reduced_motion"):
                moving = page.evaluate(
                    """() => [...document.querySelectorAll("*")].filter((e) => {
                        const style = getComputedStyle(e);
                        return parseFloat(style.transitionDuration) > 0
                            || parseFloat(style.animationDuration) > 0;
                    }).map((e) => e.tagName + "." + e.className)"""
                )
                findings += [f"{path} ({who}) moves: {m}" for m in moving]
        session.close()
    assert not findings, "\n".join(findings)
    # the violations axe found are console errors of the sessions: the fixture fails on them


def test_the_keyboards_focus_is_always_visible(open_browser, alice, bob):
    running = make_match(alice, bob, seed=6)
    for scheme in ("light", "dark"):
        session = open_browser(color_scheme=scheme)
        page = log_in(session, "alice")
        for path in ("/", running.get_absolute_url(), "/settings/"):
            session.goto(path)
            unseen = []
            for _ in range(25):
                page.keyboard.press("Tab")
                shown = page.evaluate(
                    """() => {
                        const e = document.activeElement;
                        if (!e || e === document.body) return null;
                        const style = getComputedStyle(e);
                        const ring = style.outlineStyle !== "none"
                            && parseFloat(style.outlineWidth) >= 2;
                        return [e.tagName + " " + (e.textContent || e.name || "").trim(), ring];
                    }"""
                )
                if shown and not shown[1]:
                    unseen.append(shown[0])
            assert unseen == [], (scheme, path)


def test_a_reader_chooses_the_dark_theme_or_the_light_one_over_the_systems(open_browser):
    session = open_browser(color_scheme="dark", locale="de-DE", **PHONE)
    page = session.page
    session.goto("/privacy/")
    background = "getComputedStyle(document.documentElement).backgroundColor"
    dark = page.evaluate(background)
    assert page.locator("html").get_attribute("data-theme") is None
    page.get_by_label("Farbschema").select_option(label="Hell")
    page.get_by_role("button", name="Anwenden").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert page.url.endswith("/privacy/")
    light = page.evaluate(background)
    assert light != dark
    assert light == "rgb(246, 243, 238)"
    checked(page)
    page.get_by_label("Farbschema").select_option(label="Dunkel")
    page.get_by_role("button", name="Anwenden").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.evaluate(background) == dark
    checked(page)
    page.get_by_label("Farbschema").select_option(label="Wie das System")
    page.get_by_role("button", name="Anwenden").click()
    expect(page.locator("html")).not_to_have_attribute("data-theme", "dark")
    assert page.locator("html").get_attribute("data-theme") is None
    assert page.evaluate(background) == dark
