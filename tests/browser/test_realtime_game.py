"""A real-time game in the browser, as it is played: two players at 15 seconds a move, the
clock and a Celery worker running; one lets their first move's time run out and sees the
move made for them by itself within seconds of the deadline, then both play on to the end.
And the end of a rated one: its rating changes reach the pages without a reload."""

import re
import threading
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from games.infra import clock
from games.models import Match, Seat
from tests.browser.pages import PHONE, answered, following, log_in, still_the_same_page
from tests.factories import make_due, play, seat_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def clock_running(celery_worker):
    """The clock's loop in a thread of this process, handing due seats to the worker."""
    stopping = threading.Event()
    thread = threading.Thread(target=clock.run, args=(stopping.is_set,), daemon=True)
    thread.start()
    yield
    stopping.set()
    thread.join(5)


def test_a_15_second_game_with_a_missed_move_is_played_to_the_end(
    open_asgi_browser, clock_running, alice, bob
):
    sessions = {}
    for user in (alice, bob):
        sessions[user.username] = open_asgi_browser()
        log_in(sessions[user.username], user.username)
    match = services.start_realtime([alice, bob], game="nmbr9", speed="15s")
    for session in sessions.values():
        session.goto(match.get_absolute_url())
    alice_page, bob_page = sessions["alice"].page, sessions["bob"].page
    countdown = bob_page.locator("#play time[data-countdown]")
    expect(countdown).to_have_text(re.compile(r"^0:[01][0-9]$"))
    answered(alice_page, lambda: alice_page.keyboard.press("Enter"))
    # alice waits for bob, and sees his time running
    expect(alice_page.locator("[data-waiting] time[data-countdown]")).to_be_visible()
    # bob lets the time run out: the last five seconds are marked, then the move is made
    expect(countdown).to_have_class(re.compile("countdown-low"), timeout=15_000)
    deadline = seat_of(match, bob).deadline
    expect(bob_page.locator(".round strong")).to_have_text("2", timeout=15_000)
    # By itself, at once: not after a reload nor the half-minute sweep. (The 2-s target of a
    # deadline's lateness is measured by bench.expiry, on a machine doing nothing else.)
    shown = timezone.now()
    assert shown - deadline <= timedelta(seconds=clock.RESEND), shown - deadline
    assert Seat.objects.get(match=match, player=bob).total_strikes == 1
    expect(bob_page.locator(".match-log")).to_contain_text("bob")
    for round in range(2, 21):
        for page in (alice_page, bob_page):
            expect(page.locator(".round strong")).to_have_text(str(round), timeout=10_000)
            answered(page, lambda page=page: page.keyboard.press("Enter"))
    for page in (alice_page, bob_page):
        expect(page.get_by_role("heading", name="Game over")).to_be_visible(timeout=10_000)
        expect(page.locator("[data-what-next]")).to_contain_text("Rematch")
    # another opponent, in one click: back in the same pool
    alice_page.locator("[data-new-opponent] button").click()
    expect(alice_page).to_have_url(re.compile(r"/play/wait/$"))
    expect(alice_page.locator("[data-pool-wait]")).to_be_visible()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.rated
    assert Seat.objects.get(match=match, player=bob).total_strikes == 1
    assert not Seat.objects.filter(match=match, deadline__isnull=False).exists()


def test_a_finished_pages_rating_changes_come_without_a_reload(open_asgi_browser, alice, bob):
    match = services.start_realtime([alice, bob], game="nmbr9", speed="15s")
    for _ in range(2):  # alice lets two moves pass: she is out, the match over
        play(match, bob)
        make_due(seat_of(match, alice))
        services.expire_many([seat_of(match, alice).pk])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.rated_at is None
    bobs = open_asgi_browser()
    log_in(bobs, "bob")
    bob_page, _polls = following(bobs, match.get_absolute_url())
    alices = open_asgi_browser(locale="de-DE", **PHONE)
    log_in(alices, "alice")
    alice_page, _polls = following(alices, match.get_absolute_url())
    expect(bob_page.locator(".standings")).to_contain_text("pending…")
    expect(alice_page.locator(".standings")).to_contain_text("(ausgeschieden)")
    assert services.rate_match(match.pk)  # as the worker does, after the pages are drawn
    for page in (bob_page, alice_page):  # their streams say nothing of it: the pages look
        expect(page.locator("[data-rating-change]")).to_have_count(2, timeout=10_000)
        assert still_the_same_page(page)
    width = alice_page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    alices.goto("/@/alice/")  # her profile counts the game beside her real-time rating
    expect(alice_page.locator('[data-stat="rating-nmbr9-live"]')).to_contain_text(
        "· 1 gewertete Partie"
    )
    width = alice_page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
