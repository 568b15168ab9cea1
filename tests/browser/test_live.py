"""Pages that wait for the others follow them live on the ASGI server: the other player's
move shows within a second, without a reload and without a single poll."""

import pytest
from playwright.sync_api import expect

from games import services
from tests.browser.pages import answered, following, log_in, still_the_same_page
from tests.factories import make_match, nmbrs_match, play, state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: How long a page waits for news its stream brings (ms): less than the 5 s after which a
#: page without its stream would poll (none may be sent). How soon it comes is measured by
#: ``bench.live`` (p95 0.1-0.3 s); a loaded test run took more than 1 s.
STREAMED = 4000


def test_the_next_round_reaches_the_waiting_player_by_its_stream(open_asgi_browser, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    waiting = open_asgi_browser()
    log_in(waiting, "alice")
    alice_page, polls = following(waiting, match.get_absolute_url())
    expect(alice_page.locator("[data-waiting]")).to_contain_text("Waiting for")
    moving = open_asgi_browser()
    bob_page = log_in(moving, "bob")
    moving.goto(match.get_absolute_url())
    expect(bob_page.locator(".round strong")).to_have_text("1")
    answered(bob_page, lambda: bob_page.keyboard.press("Enter"))
    expect(alice_page.locator(".round strong")).to_have_text("2", timeout=STREAMED)
    expect(alice_page.locator("[data-current]")).to_be_visible()
    assert still_the_same_page(alice_page)
    assert polls == []


def test_a_move_at_the_nmbrs_table_reaches_the_other_player_by_its_stream(
    open_asgi_browser, alice, bob
):
    match = nmbrs_match(alice, bob)
    game = state(match)
    assert game.to_move == 0
    session = open_asgi_browser()
    log_in(session, "bob")
    bob_page, polls = following(session, match.get_absolute_url())
    shown = bob_page.locator("#play").get_attribute("data-version")
    move = services.load(match).rules.auto_move(game, 0)
    services.play(match.pk, alice, str(move), 0)
    expect(bob_page.locator("#play")).not_to_have_attribute("data-version", shown, timeout=STREAMED)
    assert still_the_same_page(bob_page)
    assert polls == []


def test_the_waiting_room_sees_the_match_begin_by_its_stream(open_asgi_browser, alice, bob):
    match = services.create_match(alice, players=2, time_control="1d", rated=False, invite=["bob"])
    session = open_asgi_browser()
    log_in(session, "alice")
    page, polls = following(session, match.get_absolute_url())
    services.join(match.pk, bob)
    expect(page.locator("[data-current]")).to_be_visible(timeout=STREAMED)
    assert still_the_same_page(page)
    assert polls == []


def polls_for_the_next_round(session, alice, bob) -> None:
    """Alice waits on her page for the next round, which comes by polling."""
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    page = log_in(session, "alice")
    polls: list[str] = []
    page.on("request", lambda request: "poll=" in request.url and polls.append(request.url))
    session.goto(match.get_absolute_url())
    expect(page.locator("[data-waiting]")).to_contain_text("Waiting for")
    play(match, bob)
    expect(page.locator(".round strong")).to_have_text("2", timeout=12_000)
    assert polls and page.locator("html[data-live]").count() == 0


def test_without_a_stream_the_page_polls_as_before(open_browser, alice, bob):
    """Django's test server (WSGI) streams nothing: the waiting page polls and sees the
    next round all the same."""
    polls_for_the_next_round(open_browser(), alice, bob)


def test_without_redis_the_page_polls_and_says_nothing_wrong(
    open_asgi_browser, alice, bob, redis_away
):
    polls_for_the_next_round(open_asgi_browser(), alice, bob)


def test_a_page_in_the_background_gives_its_stream_back_and_polls(open_asgi_browser, alice, bob):
    """A hidden tab holds no stream (a browser has six connections per site for all tabs):
    it polls, and opens its stream again once shown."""
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    session = open_asgi_browser()
    log_in(session, "alice")
    page, polls = following(session, match.get_absolute_url())
    page.evaluate(
        """() => {
            Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
            document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )
    expect(page.locator("html")).not_to_have_attribute("data-live", "open")
    play(match, bob)  # the hidden page finds the next round by polling
    expect(page.locator(".round strong")).to_have_text("2", timeout=10000)
    assert polls
    page.evaluate(
        """() => {
            Object.defineProperty(document, "hidden", { configurable: true, get: () => false });
            document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )
    expect(page.locator("html")).to_have_attribute("data-live", "open")
