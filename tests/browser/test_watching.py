"""Watching a match in headless Chromium on the ASGI server: a spectator (a third browser
beside the two players', once a visitor) opens a rounds match from the lobby's Watch list and
sees the next round arrive within a second, without a reload or a poll, and never the next
card; a private match is not listed and is no page for them; the page on a phone in German."""

from collections import Counter

import pytest
from playwright.sync_api import expect

from games.nmbr9.game import DECKS
from tests.browser.pages import answered, following, log_in, still_the_same_page
from tests.factories import game_of, make_match, play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def supply_shown(page) -> dict[int, int]:
    """How many of each number the page says can still come."""
    counts = page.locator("[data-supply] .count").all_inner_texts()
    numbers = page.locator("[data-supply] .n").all_inner_texts()
    return {int(n): int(c.lstrip("×")) for n, c in zip(numbers, counts, strict=True)}


def from_the_lobby(session, match, *, unlisted=()):
    """The spectator opens ``match`` with its Watch link in the lobby (where none of the
    matches ``unlisted`` is), and follows it: the page once its live stream is open, with a
    note that is lost if it is loaded again, and a count of the polls it sends."""
    page = session.page
    session.goto("/lobby/")
    entry = page.locator(f'[data-watch="{match.pk}"]')
    expect(entry).to_be_visible()
    for other in unlisted:
        assert page.locator(f'[data-watch="{other.pk}"]').count() == 0
    polls: list[str] = []
    page.on("request", lambda request: "poll=" in request.url and polls.append(request.url))
    entry.locator("[data-watch-link]").click()
    page.wait_for_url(f"**{match.get_absolute_url()}")
    expect(page.locator("html")).to_have_attribute("data-live", "open")
    page.evaluate("() => { window.notReloaded = true; }")
    return page, polls


def sees_round(page, cards, number: int) -> None:
    """The spectator's page shows round ``number``: its card, turned up for everybody, and
    no card after it, as the tiles that can still come tell."""
    expect(page.locator(".round strong")).to_have_text(str(number), timeout=1000)
    expect(page.locator("[data-showing]")).to_have_text(str(cards[number - 1]))
    left = Counter(DECKS["base"]) - Counter(cards[:number])
    assert supply_shown(page) == {n: left[n] for n in range(10)}
    assert page.locator("[data-current], [data-ghost-legend], form[action$='/play/']").count() == 0


def test_a_spectator_follows_a_rounds_match_from_the_lobby_and_never_sees_the_next_card(
    open_asgi_browser, alice, bob, carol
):
    match = make_match(alice, bob, pace="rounds", time_control="1d")
    hidden = make_match(alice, bob, pace="rounds", time_control="1d", private=True, seed=8)
    cards = game_of(match).deal.cards
    play(match, alice)
    play(match, bob)
    play(match, alice)  # round 2: bob still has to place the card
    waiting = open_asgi_browser()
    log_in(waiting, "alice")
    alice_page, _ = following(waiting, match.get_absolute_url())
    watcher = open_asgi_browser()
    log_in(watcher, "carol")
    page, polls = from_the_lobby(watcher, match, unlisted=[hidden])
    expect(page.locator("[data-watching]")).to_be_visible()
    expect(page.locator("[data-watching-turn]")).to_contain_text("Waiting for bob")
    sees_round(page, cards, 2)
    moving = open_asgi_browser()
    bob_page = log_in(moving, "bob")
    moving.goto(match.get_absolute_url())
    answered(bob_page, lambda: bob_page.keyboard.press("Enter"))  # round 2 is over
    sees_round(page, cards, 3)
    expect(alice_page.locator(".round strong")).to_have_text("3", timeout=1000)
    expect(page.locator("[data-opponent='bob']")).to_contain_text("2 tiles")
    assert still_the_same_page(page) and polls == []
    # Asked as the browser would, without a page showing the answer.
    for path in (hidden.get_absolute_url(), match.get_absolute_url() + "replay/"):
        assert watcher.context.request.get(watcher.base_url + path).status == 404, path


def test_a_visitor_watches_too_and_is_sent_to_log_in_by_a_private_match(
    open_asgi_browser, alice, bob
):
    match = make_match(alice, bob, pace="rounds", time_control="1d")
    hidden = make_match(alice, bob, pace="rounds", time_control="1d", private=True, seed=8)
    cards = game_of(match).deal.cards
    visitor = open_asgi_browser()
    page, polls = from_the_lobby(visitor, match, unlisted=[hidden])
    sees_round(page, cards, 1)
    play(match, alice)
    play(match, bob)
    sees_round(page, cards, 2)
    assert still_the_same_page(page) and polls == []
    visitor.goto(hidden.get_absolute_url())
    expect(page.locator("#id_username")).to_be_visible()  # the log-in page


def test_the_spectators_page_and_the_watch_list_fit_a_phone_in_german(
    open_asgi_browser, alice, bob, carol
):
    match = make_match(alice, bob, pace="free", time_control="1d")
    for _ in range(3):
        play(match, alice)
    play(match, bob)
    phone = open_asgi_browser(locale="de", **PHONE)
    log_in(phone, "carol")
    page, _ = from_the_lobby(phone, match)
    expect(page.locator("[data-watching]")).to_contain_text("Du schaust dieser Partie zu")
    expect(page.locator("[data-watching-turn]")).to_contain_text("in ihrem eigenen Tempo")
    expect(page.locator(".round strong")).to_have_text("2")  # bob's round, not alice's
    for path in (match.get_absolute_url(), "/lobby/"):
        phone.goto(path)
        expect(page.locator("main")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    expect(page.locator("[data-watch-link]").first).to_have_text("Zuschauen")
