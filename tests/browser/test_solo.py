"""A newcomer signs up, logs in and plays a whole solo game in headless Chromium."""

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from games import services
from games.models import Match
from games.nmbr9.policy import choose
from tests.browser.pages import (
    answered,
    fill_sign_up,
    ghost,
    log_in,
    screen_point,
    solo_without_javascript,
    wait_ghost,
)
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_up_in(session, username: str) -> None:
    session.goto("/")
    session.page.get_by_role("link", name="Sign up").first.click()
    fill_sign_up(session.page, username)


def place_by_clicking_and_keys(page, match, round: int) -> None:
    game = services.load(match).state
    target = choose(game.board(0), game.current_number(0))
    x, y, rotation = ghost(page)
    while rotation != target.rotation:
        answered(page, lambda: page.keyboard.press("r"))
        rotation = (rotation + 1) % 4
        expect(page.locator("#turn")).to_have_attribute("data-rotation", str(rotation))
    w, h = target.size
    # Odd rounds: click one square to the left of the target, then step right with a key.
    dx = 1 if round % 2 else 0
    cx, cy = target.x - dx + (w - 1) // 2, target.y + (h - 1) // 2
    point = screen_point(page, cx, cy)
    answered(page, lambda: page.mouse.click(*point))
    wait_ghost(page, target.x - dx, target.y, target.rotation)
    if dx:
        answered(page, lambda: page.keyboard.press("ArrowRight"))
        wait_ghost(page, target.x, target.y, target.rotation)
    expect(page.locator("[data-verdict]")).to_have_class(re.compile(r"\bok\b"))
    if round % 3:
        answered(page, lambda: page.keyboard.press("Enter"))
    else:
        answered(page, lambda: page.get_by_role("button", name="Confirm").click())


def test_a_newcomer_plays_a_whole_solo_game(open_browser):
    session = open_browser()
    page = session.page
    sign_up_in(session, "newcomer")
    page.locator(".who").click()  # the account's menu
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in", exact=True)).to_be_visible()
    page.get_by_role("link", name="Log in", exact=True).click()
    page.fill("#id_username", "newcomer")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".who")).to_have_text("newcomer")

    page.get_by_role("button", name="New solo game").click()
    expect(page.locator("#play")).to_be_visible()
    match = Match.objects.get(created_by=User.objects.get(username="newcomer"))
    for round in range(1, 21):
        expect(page.locator(".round strong")).to_have_text(str(round))
        place_by_clicking_and_keys(page, match, round)
    expect(page.locator("[data-final-score]")).to_be_visible()
    seat = match.seats.get()
    assert seat.progress == 20
    expect(page.locator("[data-final-score]")).to_have_text(str(seat.score))
    expect(page.get_by_text("A new personal best!")).to_be_visible()

    page.reload()
    expect(page.locator("[data-final-score]")).to_have_text(str(seat.score))
    # Nothing more to come or to place: no supply ("Still to come 0x0"), no ghost's legend.
    expect(page.locator("[data-supply-list]")).to_have_count(0)
    expect(page.locator("[data-ghost-legend]")).to_have_count(0)
    page.locator(".who").click()
    page.locator("[data-nav-profile]").click()
    expect(page.locator('[data-stat="best"]')).to_be_visible()


def test_an_illegal_spot_shows_red_with_the_reason(open_browser, alice):
    session = open_browser()
    page = log_in(session, "alice")
    page.get_by_role("button", name="New solo game").click()
    answered(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator(".round strong")).to_have_text("2")
    first = page.locator("svg .tile").first
    assert first.get_attribute("data-level") == "0"
    match = Match.objects.get()
    placed = services.load(match).state.board(0).placements[0]
    page.goto(f"{session.base_url}{match.get_absolute_url()}?x={placed.x}&y={placed.y}&rotation=0")
    expect(page.locator("[data-ghost='illegal']")).to_be_visible()
    expect(page.locator("[data-verdict]")).to_have_class(re.compile(r"\bbad\b"))
    expect(page.get_by_role("button", name="Confirm")).to_be_disabled()
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    expect(page.locator(".round strong")).to_have_text("2")


def test_the_game_fits_a_phone_and_works_without_javascript(browser, live_server, alice):
    phone = {"viewport": {"width": 375, "height": 740}, "is_mobile": True}
    context, page = solo_without_javascript(browser, live_server, "alice", **phone)
    match = Match.objects.get()
    game = services.load(match).state
    target = choose(game.board(0), game.current_number(0))
    page.get_by_text("Place by coordinates").click()
    page.fill("input[name=x] >> visible=true", str(target.x))
    page.fill("input[name=y] >> visible=true", str(target.y))
    page.fill("input[name=rotation] >> visible=true", str(target.rotation))
    page.get_by_role("button", name="Place", exact=True).click()
    expect(page.locator(".round strong")).to_have_text("2")
    page.get_by_role("link", name="→").click()
    expect(page).to_have_url(re.compile(r"rotation="))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375
    context.close()


def test_quick_key_presses_are_never_dropped(open_browser, alice):
    session = open_browser()
    page = log_in(session, "alice")
    page.get_by_role("button", name="New solo game").click()
    expect(page.locator("#turn")).to_have_attribute("data-x", re.compile(r"-?\d+"))
    x, y, rotation = ghost(page)
    page.evaluate("window.loadedOnce = true")
    for _press in range(5):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(40)
    wait_ghost(page, x + 5, y, rotation)
    for _press in range(3):
        page.keyboard.press("r")
        page.wait_for_timeout(40)
    wait_ghost(page, x + 5, y, (rotation + 3) % 4)
    assert page.evaluate("window.loadedOnce") is True
