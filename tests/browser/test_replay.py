"""A replay in headless Chromium: keys and buttons step through the rounds without a page
load, the address keeps the round, autoplay plays on by itself, the placed tiles are
outlined and the chart marks the round shown."""

import contextlib
import re

import pytest
from playwright.sync_api import expect

from tests.browser.pages import REPORT_VIOLATIONS, log_in
from tests.factories import make_match, play_to_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_replay(open_browser, alice, bob, *, seed: int, round: int):
    """Alice's browser on the replay of a finished match of hers with Bob, at ``round``;
    ``window.loadedOnce`` is set, and gone if the page is loaded again."""
    match = make_match(alice, bob, seed=seed)
    play_to_end(match, [alice, bob])
    session = open_browser()
    page = log_in(session, "alice")
    session.goto(f"/game/{match.pk}/replay/?round={round}")
    shown = page.locator("[data-replay-round]")
    expect(shown).to_have_text(f"After round {round} of 20")
    page.evaluate("window.loadedOnce = true")
    return page, shown


def test_a_pause_drops_the_step_that_was_on_its_way(open_browser, alice, bob):
    page, shown = open_replay(open_browser, alice, bob, seed=5, round=0)
    held = []
    steps = re.compile(r"/replay/\?round=\d+$")
    page.route(steps, lambda route: held.append(route))  # the steps wait here
    page.get_by_role("button", name="Autoplay").click()
    for _wait in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "autoplay asked for no step"
    page.get_by_role("button", name="Pause").click()
    for route in held:
        with contextlib.suppress(Exception):  # the browser has dropped it already
            route.continue_()
    page.wait_for_timeout(1500)
    expect(shown).to_have_text("After round 0 of 20")
    page.get_by_role("button", name="Autoplay").click()  # it plays on after the pause
    page.unroute(steps)
    expect(shown).to_have_text("After round 1 of 20", timeout=8000)


def test_stepping_through_a_replay_without_page_loads(open_browser, alice, bob):
    page, shown = open_replay(open_browser, alice, bob, seed=5, round=20)

    page.keyboard.press("Home")
    expect(shown).to_have_text("After round 0 of 20")
    expect(page).to_have_url(re.compile(r"\?round=0$"))
    expect(page.locator("[data-placed-now]")).to_have_count(0)
    page.keyboard.press("ArrowRight")
    expect(shown).to_have_text("After round 1 of 20")
    expect(page).to_have_url(re.compile(r"\?round=1$"))
    expect(page.locator("[data-placed-now]")).to_have_count(2)  # one tile each
    expect(page.locator("[data-chart-round]")).to_have_attribute("data-chart-round", "1")
    page.keyboard.press("End")
    expect(shown).to_have_text("After round 20 of 20")
    page.keyboard.press("ArrowLeft")
    expect(shown).to_have_text("After round 19 of 20")
    page.get_by_role("link", name="Round 20 →").click()
    expect(shown).to_have_text("After round 20 of 20")

    autoplay = page.get_by_role("button", name="Autoplay")
    autoplay.click()  # at the end: from the start again
    expect(shown).to_have_text("After round 2 of 20", timeout=8000)
    page.get_by_role("button", name="Pause").click()
    stopped = shown.inner_text()
    page.wait_for_timeout(1500)
    expect(shown).to_have_text(stopped)
    assert page.evaluate("window.loadedOnce") is True

    page.reload()  # the address holds the round
    expect(shown).to_have_text(stopped)

    # Back while it plays: it stops on the round Back shows, as the address says.
    autoplay.click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(page).to_have_url(re.compile(r"\?round=\d+$"), timeout=8000)
    moved = page.url
    expect(page).not_to_have_url(moved, timeout=8000)
    page.go_back()
    expect(page.get_by_role("button", name="Autoplay")).to_be_visible()
    back = page.url
    round = re.search(r"round=(\d+)", back).group(1)
    expect(shown).to_have_text(f"After round {round} of 20")
    page.wait_for_timeout(1500)
    expect(shown).to_have_text(f"After round {round} of 20")
    assert page.url == back
    page.get_by_role("button", name="Autoplay").click()  # and it plays again from there
    expect(shown).not_to_have_text(f"After round {round} of 20", timeout=8000)


def test_quick_presses_in_a_replay_step_as_often_as_pressed(open_browser, alice, bob):
    page, shown = open_replay(open_browser, alice, bob, seed=6, round=0)
    for _press in range(5):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(40)
    expect(shown).to_have_text("After round 5 of 20")
    expect(page).to_have_url(re.compile(r"\?round=5$"))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(shown).to_have_text("After round 3 of 20")
    assert page.evaluate("window.loadedOnce") is True


def whole_replay(page, round: int | None = None):
    """The replay page in full, as loaded: one header, the stylesheet, the autoplay button,
    one step shown (``round``, if given, the one the address names)."""
    expect(page.locator("header.site-header")).to_have_count(1)
    expect(page.locator("#replay")).to_have_count(1)
    expect(page.get_by_role("button", name="Autoplay")).to_be_visible()
    assert page.evaluate("document.styleSheets.length") >= 1
    if round is not None:
        expect(page.locator("[data-replay-round]")).to_have_text(f"After round {round} of 20")
        assert page.url.endswith(f"?round={round}")


def test_back_after_autoplay_brings_back_the_whole_page_without_errors(open_browser, alice, bob):
    """Back after autoplay, after more steps than htmx's history keeps, and from another
    page: each time the whole replay page, never the step alone, and no console error nor
    Content-Security-Policy violation."""
    match = make_match(alice, bob, seed=5)
    play_to_end(match, [alice, bob])
    session = open_browser()
    page = log_in(session, "alice")
    page.add_init_script(REPORT_VIOLATIONS)
    session.goto(match.get_absolute_url())
    page.locator("[data-replay-link]").first.click()
    shown = page.locator("[data-replay-round]")
    expect(shown).to_have_text("After round 20 of 20")

    page.get_by_role("button", name="Autoplay").click()  # from the start: round 0, 1, 2...
    expect(shown).to_have_text("After round 2 of 20", timeout=8000)
    page.go_back()
    whole_replay(page)
    round = int(re.search(r"round=(\d+)", page.url).group(1))
    whole_replay(page, round)

    # More steps than htmx keeps copies of: Back fetches the older ones from the server.
    page.keyboard.press("Home")
    expect(shown).to_have_text("After round 0 of 20")
    for round in range(1, 13):
        page.keyboard.press("ArrowRight")
        expect(shown).to_have_text(f"After round {round} of 20")
    for round in range(11, 0, -1):
        page.go_back()
        whole_replay(page, round)

    # A step, away to another page and Back: the browser's cache holds the page for the
    # step's address, not the step alone.
    page.keyboard.press("ArrowRight")
    expect(shown).to_have_text("After round 2 of 20")
    page.get_by_role("link", name="Lobby").click()
    expect(page.locator("h1")).to_be_visible()
    page.go_back()
    whole_replay(page, 2)
    page.get_by_role("button", name="Autoplay").click()
    expect(shown).to_have_text("After round 3 of 20", timeout=8000)
    assert session.errors == []
