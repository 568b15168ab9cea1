"""Boards that read at a glance, in headless Chromium: one level at a time, the legend, the
board on a phone, coordinates without JavaScript, opponents' boards enlarged in place."""

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match
from tests.browser.pages import ghost, log_in, solo_without_javascript, wait_ghost
from tests.factories import make_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def stacked_solo(user, *, tiles: int = 10):
    """A solo game whose display has tiles on level 1 (the policy's first ``tiles``)."""
    match = services.start_solo(user, seed=11)
    for _tile in range(tiles):
        record = services.load(match)
        move = record.rules.auto_move(record.state, 0)
        services.play(match.pk, user, str(move), record.ply)
    board = services.load(match).state.board(0)
    assert board.height() > 1, "the policy stacks within its first tiles"
    return match


def test_one_level_at_a_time_and_the_legend(open_browser, alice):
    match = stacked_solo(alice)
    session = open_browser()
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    own = page.locator("[data-own-board]")
    expect(page.locator("[data-legend]")).to_contain_text("a badge gives its level")
    upper = own.locator(".tile[data-level='1']").first
    lower = own.locator(".tile[data-level='0']").first
    expect(upper).to_be_visible()
    expect(own.locator(".level-badge[data-level='1']").first).to_be_visible()
    covered = own.locator(".label.under[data-level='0']")
    assert covered.count() > 0, "a level-1 tile covers a number"
    expect(covered.first).to_be_hidden()

    page.get_by_role("button", name="Level 0", exact=True).click()
    expect(upper).to_be_hidden()
    expect(lower).to_be_visible()
    expect(covered.first).to_be_visible()  # the numbers beneath can be read
    expect(page.get_by_role("button", name="Level 0", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    # the choice holds while the tile is moved (a new board arrives each time)
    x, y, rotation = ghost(page)
    page.keyboard.press("ArrowRight")
    wait_ghost(page, x + 1, y, rotation)
    expect(own.locator(".tile[data-level='1']").first).to_be_hidden()

    page.get_by_role("button", name="Level 1", exact=True).click()
    expect(own.locator(".tile[data-level='1']").first).to_be_visible()
    assert "below" in (own.locator(".tile[data-level='0']").first.get_attribute("class") or "")
    page.get_by_role("button", name="All levels").click()
    expect(own.locator(".tile[data-level='0']").first).not_to_have_class(re.compile(r"\bbelow\b"))
    expect(own.locator(".tile[data-level='1']").first).to_be_visible()

    # the tile being placed is hatched, dashed, its number on a dot of its own
    expect(own.locator(".ghost .label-dot")).to_be_visible()
    dash = own.locator(".ghost .edge").evaluate("e => getComputedStyle(e).strokeDasharray")
    assert dash not in ("", "none")


def test_the_board_on_a_phone(open_browser, alice):
    match = stacked_solo(alice)
    session = open_browser(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    board = page.locator("[data-own-board] svg")
    expect(board).to_be_visible()
    square = board.evaluate("svg => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width")
    assert square >= 28
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways page
    # the tile being placed is in sight in the board's frame, and the controls in reach
    inside = page.evaluate(
        """() => {
            const frame = document.querySelector("[data-own-board]").getBoundingClientRect();
            const tile = document.querySelector("[data-own-board] .ghost").getBoundingClientRect();
            return tile.left >= frame.left - 1 && tile.right <= frame.right + 1;
        }"""
    )
    assert inside
    confirm = page.get_by_role("button", name="Confirm")
    box = confirm.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844
    x, y, rotation = ghost(page)
    page.get_by_role("link", name="→").click()
    wait_ghost(page, x + 1, y, rotation)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_without_javascript_the_board_shows_its_coordinates(browser, live_server, alice):
    screen = {"viewport": {"width": 1000, "height": 800}}
    context, page = solo_without_javascript(browser, live_server, "alice", **screen)
    axes = page.locator("[data-own-board] [data-coordinates]")
    expect(axes).to_be_visible()
    expect(axes.locator("text", has_text=re.compile(r"^0$")).first).to_be_visible()
    context.close()


def test_with_javascript_coordinates_show_when_placing_by_them(open_browser, alice):
    page = log_in(open_browser(), "alice")
    page.get_by_role("button", name="New solo game").click()
    axes = page.locator("[data-own-board] [data-coordinates]")
    expect(axes).to_be_hidden()
    page.get_by_text("Place by coordinates").click()
    expect(axes).to_be_visible()


def test_an_opponents_board_is_readable_and_enlarges_in_place(open_browser, alice, bob):
    match = make_match(alice, bob, pace="free", time_control="1d")
    for _tile in range(6):  # a display shows as many tiles as the viewer has placed
        for index, player in enumerate((alice, bob)):
            record = services.load(match)
            move = record.rules.auto_move(record.state, index)
            services.play(match.pk, player, str(move), record.made_by(record.seats[index]))
    session = open_browser()
    page = log_in(session, "alice")
    session.goto(Match.objects.get().get_absolute_url())
    display = page.locator("[data-opponent='bob']")
    label = display.locator("svg .label").first
    small = label.bounding_box()
    assert small is not None and small["height"] >= 9  # the numbers read at this size
    width = display.locator("svg").bounding_box()["width"]
    display.locator("a").first.click()
    expect(page.locator("[data-opponent='bob'].focused")).to_be_visible()
    assert page.locator("[data-opponent='bob'] svg").bounding_box()["width"] > width * 1.5
    expect(page.locator("#turn")).to_be_visible()  # still on the same page, in place
