"""Real-time matches in the browser: a countdown counts in the server's time whatever the
browser's clock says, shows the seconds and marks the last five; a player who lets their
time run out sees the move made for them and their next turn without a reload."""

import re
import time
from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from games.models import Match, Move, Seat
from tests.browser.pages import answered, following, ghost, log_in, still_the_same_page, wait_ghost
from tests.factories import make_match, nmbrs_match, play, seat_of, state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: How far behind the server the browser's clock is in these tests.
BEHIND = timedelta(seconds=40)


def real_time(match: Match, user, *, left: float) -> datetime:
    """Make ``match`` one of 15 seconds a move, with ``user``'s deadline ``left`` seconds
    away; the deadline."""
    Match.objects.filter(pk=match.pk).update(time_per_move=timedelta(seconds=15))
    deadline = timezone.now() + timedelta(seconds=left)
    Seat.objects.filter(pk=seat_of(match, user).pk).update(deadline=deadline)
    return deadline


def wait_until(moment: datetime) -> None:
    time.sleep(max(0.0, (moment - timezone.now()).total_seconds()))


def test_a_short_countdown_counts_seconds_in_the_servers_time(open_browser, alice, bob):
    session = open_browser()
    page = session.page
    page.clock.set_system_time(datetime.now() - BEHIND)
    log_in(session, "alice")
    assert page.evaluate("Date.now()") < (time.time() - 30) * 1000  # the browser is behind
    match = make_match(alice, bob)
    real_time(match, alice, left=9)
    session.goto(match.get_absolute_url())
    countdown = page.locator("#play time[data-countdown]")
    expect(countdown).to_have_attribute("role", "timer")
    # 40 s behind, the browser alone would count from 0:49
    expect(countdown).to_have_text(re.compile(r"^0:0[6-9]$"))
    expect(countdown).not_to_have_class(re.compile(r"countdown-low"))
    # a real-time clock is not urgent all along (as a correspondence one under an hour is)
    expect(countdown).not_to_have_class(re.compile(r"\burgent\b"))
    expect(countdown).to_have_class(re.compile(r"countdown-low"), timeout=8000)
    assert re.fullmatch(r"0:0[1-5]", countdown.text_content())
    expect(countdown).to_have_text("time is up", timeout=7000)
    expect(countdown).not_to_have_class(re.compile(r"countdown-low"))
    assert countdown.get_attribute("aria-live") is None


def test_a_player_out_of_time_sees_the_move_made_for_them_without_a_reload(
    open_browser, alice, bob
):
    """Django's test server streams nothing: the page alone fetches itself again once the
    time is up, again while the move made for the player is not there yet."""
    match = make_match(alice, bob, pace="rounds")
    play(match, bob)
    session = open_browser()
    page = session.page
    page.clock.set_system_time(datetime.now() - BEHIND)
    log_in(session, "alice")
    deadline = real_time(match, alice, left=5)
    session.goto(match.get_absolute_url())
    expect(page.locator(".round strong")).to_have_text("1")
    expect(page.locator("#play")).to_have_attribute("data-ply", "0")
    page.evaluate("() => { window.notReloaded = true; }")
    # the page asks 1.5 s after the deadline, before the sweep made the move: it still owes
    wait_until(deadline + timedelta(seconds=2.5))
    expect(page.locator(".round strong")).to_have_text("1")
    assert services.expire_many([seat_of(match, alice).pk]) == 1
    expect(page.locator(".round strong")).to_have_text("2", timeout=8000)
    expect(page.locator("#play")).to_have_attribute("data-ply", "1")
    expect(page.locator("[data-current]")).to_be_visible()
    countdown = page.locator("#play time[data-countdown]")
    expect(countdown).to_have_text(re.compile(r"^0:1[0-5]$"))
    assert still_the_same_page(page)


def test_a_moving_player_follows_the_others_live_and_keeps_the_tile_they_moved(
    open_asgi_browser, alice, bob, carol
):
    """The others' moves reach a page whose player owes a move too, without a reload, and
    the turn being made stays as the player left it: the tile moved is confirmed there."""
    match = make_match(alice, bob, carol, pace="rounds")
    session = open_asgi_browser()
    log_in(session, "alice")
    page, polls = following(session, match.get_absolute_url())
    expect(page.locator('[data-opponent="bob"]')).to_contain_text("to move")
    start = ghost(page)
    answered(page, lambda: page.keyboard.press("ArrowLeft"), areas="#turn")
    moved = (start[0] - 1, start[1], start[2])
    wait_ghost(page, *moved)
    shown = page.locator("#play").get_attribute("data-version")
    confirm = page.get_by_role("button", name="Confirm", exact=True)
    confirm.focus()
    play(match, bob)
    expect(page.locator("#play")).not_to_have_attribute("data-version", shown, timeout=2000)
    expect(page.locator('[data-opponent="bob"]')).not_to_contain_text("to move")
    wait_ghost(page, *moved)
    expect(confirm).to_be_focused()  # the refresh took neither the turn nor the focus
    answered(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator("[data-waiting]")).to_contain_text("Waiting for carol")
    made = Move.objects.get(match=match, seat=seat_of(match, alice)).text
    assert f"@{moved[0]},{moved[1]}r{moved[2]}" in made, made
    assert still_the_same_page(page) and polls == []


def test_at_the_nmbrs_table_the_turn_passes_on_without_a_reload_when_time_is_up(
    open_browser, alice, bob
):
    match = nmbrs_match(alice, bob)
    assert state(match).to_move == 0
    session = open_browser()
    page = session.page
    log_in(session, "alice")
    deadline = real_time(match, alice, left=4)
    session.goto(match.get_absolute_url())
    expect(page.locator(".nmbrs-turn")).to_be_visible()
    expect(page.locator('[data-player="alice"]')).to_contain_text("to move")
    page.evaluate("() => { window.notReloaded = true; }")
    wait_until(deadline)
    assert services.expire_many([seat_of(match, alice).pk]) == 1
    expect(page.locator('[data-player="bob"]')).to_contain_text("to move", timeout=8000)
    expect(page.locator("#play")).not_to_have_attribute("data-owes", re.compile("."))
    assert still_the_same_page(page)
