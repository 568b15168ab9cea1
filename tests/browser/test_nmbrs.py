"""Three players in three browsers play a short nmbrs! match to the end: an offer taken out
of turn, plays chosen by selecting cards, a joker swapped, discards, the final standings.
Quick clicks on cards, and the seats round the table on a phone."""

import time

import pytest
from playwright.sync_api import expect

from games.models import Match, Move
from games.nmbrs.rules import RULES
from games.web.nmbrs.adapter import NmbrsWeb
from tests.browser.pages import PHONE, answered, log_in
from tests.factories import nmbrs_match, state

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

#: A deal in which, after "pass" and "take", the fallback policy swaps a joker and the
#: match ends quickly with a low target score (set for the test only).
SEED, TARGET = 295, 55


def make(page, text: str) -> None:
    """Make the move ``text`` through the page as a player would."""
    kind = text.split()[0]
    if kind in ("take", "pass", "draw", "done"):
        answered(page, lambda: page.locator(f'[data-move="{kind}"]').click())
        return
    move = RULES.parse_move(text)
    cards = [move.card] if kind in ("discard", "swap") else [c.card for c in move.cards]
    for card in cards:
        answered(page, lambda card=card: page.locator(f'[data-pick="{card}"]').click())
    if kind == "discard":
        answered(page, lambda: page.locator('[data-move="discard"]').click())
        return
    listed = page.locator(f'[data-play="{text}"]')
    if listed.count() == 0:  # not among the listed plays: write it out
        page.locator("details.write-play summary").click()
        page.fill('input[name="attempt"]', text)
        answered(page, lambda: page.get_by_role("button", name="Preview").click())
        expect(page.locator("[data-verdict].ok, .verdict.ok")).to_be_visible()
        answered(page, lambda: page.locator('.write-play [data-move="play"]').click())
        return
    expect(listed.locator(".points")).to_be_visible()
    answered(page, lambda: listed.locator("button").click())


def test_three_players_play_a_short_match_to_the_end(
    open_browser, celery_worker, alice, bob, carol
):
    pages = [log_in(open_browser(), name) for name in ("alice", "bob", "carol")]
    alice = pages[0]
    alice.get_by_role("link", name="New match").click()
    alice.get_by_role("link", name="nmbrs!").click()
    alice.locator("[data-rules-link]").click()
    expect(alice.locator("h1")).to_have_text("How nmbrs! is played")
    alice.go_back()
    alice.select_option("#id_players", "3")
    alice.fill("#id_invite", "bob carol")
    alice.uncheck("#id_open")
    alice.get_by_role("button", name="Create the match").click()
    expect(alice.get_by_text("Waiting for players")).to_be_visible()
    match = Match.objects.get()
    # Before anything is dealt: a known deal, and a short game.
    Match.objects.filter(pk=match.pk).update(seed=SEED, options={**match.options, "target": TARGET})
    for page in pages[1:]:
        page.goto(page.url)
        page.locator(f'[data-match="{match.pk}"] a').first.click()
        page.get_by_role("button", name="Accept").click()
    expect(alice.locator('[data-choice="draw"]')).to_be_visible(timeout=12_000)

    # carol tries "always pass", then switches it off again (the deal expects her answers).
    carol_page = pages[2]
    carol_page.check('[data-pref="always_pass"]')
    carol_page.locator("[data-save-prefs]").click()
    expect(carol_page.locator('[data-pref="always_pass"]')).to_be_checked()
    assert match.seats.get(index=2).prefs == {"always_pass": True}
    carol_page.uncheck('[data-pref="always_pass"]')
    carol_page.locator("[data-save-prefs]").click()
    expect(carol_page.locator('[data-pref="always_pass"]')).not_to_be_checked()
    assert match.seats.get(index=2).prefs == {"always_pass": False}

    # alice passes the discard; bob, out of turn, is offered it and takes it.
    top = state(match).top
    make(alice, "pass")
    pages[1].reload()
    expect(pages[1].locator('[data-choice="offer"]')).to_contain_text("offered to you")
    expect(pages[1].locator(f'[data-discard] [data-card="{top}"]')).to_be_visible()
    make(pages[1], "take")
    expect(pages[1].locator(f'.hand [data-card="{top}"]')).to_be_visible()

    swapped = False
    for _ in range(100):
        game = state(match)
        if game.over:
            break
        player = game.to_move
        text = str(RULES.auto_move(game, player))
        swapped = swapped or text.startswith("swap")
        page = pages[player]
        page.reload()
        before = Move.objects.filter(match=match).count()
        make(page, text)
        assert Move.objects.filter(match=match).count() == before + 1, text
    assert swapped
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    for page in pages:
        page.reload()
        expect(page.get_by_text("Game over")).to_be_visible()
        expect(page.locator("[data-rank]")).to_have_count(3)
        expect(page.get_by_text("Hands at the end")).to_be_visible()
    log = pages[0].locator(".match-log")
    expect(log).to_contain_text("went out")
    expect(log).to_contain_text("carol ")
    replay = pages[2]
    replay.locator("[data-replay-link]").click()
    plies = Move.objects.filter(match=match).count()
    expect(replay.locator("[data-replay-round]")).to_have_text(f"After move {plies} of {plies}")
    expect(replay.locator("[data-replay-hand]")).to_have_count(3)
    replay.keyboard.press("ArrowLeft")
    expect(replay.locator("[data-replay-round]")).to_have_text(f"After move {plies - 1} of {plies}")
    expect(replay.locator("[data-replay-move]")).not_to_be_empty()
    replay.locator('[data-deal-link="1"]').click()
    expect(replay.locator("[data-replay-round]")).to_have_text(f"After move 1 of {plies}")
    expect(replay.locator("[data-replay-hand].moved")).to_have_count(1)


def settled(page, answers: list[str], count: int) -> None:
    """Wait until ``count`` selections were answered (``answers``) and the last one settled."""
    for _wait in range(100):
        if len(answers) >= count:
            break
        page.wait_for_timeout(100)
    assert len(answers) == count, answers
    page.wait_for_function(
        """() => !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling")"""
    )


def test_quick_clicks_on_cards_are_never_dropped(open_browser, alice, bob, monkeypatch):
    match = nmbrs_match(alice, bob)
    # Each selection takes the server a while to answer, as on a busy site.
    context = NmbrsWeb.context

    def slow(self, mv, **query):
        if query.get("preview"):
            time.sleep(0.2)
        return context(self, mv, **query)

    monkeypatch.setattr(NmbrsWeb, "context", slow)
    session = open_browser()
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    answered(page, lambda: page.locator('[data-move="take"]').click())
    hand = state(match).hands[0]
    answers: list[str] = []
    page.on(
        "requestfinished", lambda request: "pick=" in request.url and answers.append(request.url)
    )
    for card in hand[:5]:
        page.locator(f'a[data-pick="{card}"]').click()
        page.wait_for_timeout(50)
    settled(page, answers, 5)
    picked = page.locator("a[data-pick].picked")
    shown = picked.evaluate_all("cards => cards.map(card => card.dataset.pick)")
    assert sorted(shown) == sorted(hand[:5])
    # Two quick clicks on one card: selected, then not.
    card = page.locator(f'a[data-pick="{hand[5]}"]')
    card.click()
    page.wait_for_timeout(50)
    card.click()
    settled(page, answers, 7)
    expect(card).to_have_attribute("aria-pressed", "false")
    expect(picked).to_have_count(5)


def test_each_seat_is_a_tidy_line_on_a_phone(open_browser, alice, bob, carol):
    match = nmbrs_match(alice, bob, carol)
    session = open_browser(**PHONE)
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    seats = page.locator(".around li")
    expect(seats).to_have_count(3)
    expect(seats.first).to_have_text("alice · 50 points · 7 cards · not laid yet · to move")
    for seat in seats.all():
        text = seat.inner_text()  # as laid out: a gap between items reads as a line break
        assert "\n" not in text and "  " not in text, text
        items = seat.evaluate(
            """seat => [...seat.children].map(item => {
                const box = item.getBoundingClientRect();
                return {lines: item.getClientRects().length, left: box.left, right: box.right,
                        top: box.top};
            })"""
        )
        # No item breaks across lines or leaves the screen; the items of a line are a space
        # apart.
        assert all(item["lines"] == 1 and item["right"] <= 390 for item in items), items
        for item, after in zip(items, items[1:], strict=False):
            if abs(item["top"] - after["top"]) < 1:
                assert after["left"] - item["right"] < 8, items


#: The game's own controls in the turn and the hand, which a finger must be able to hit.
CONTROLS = (
    ".nmbrs-turn button, a[data-pick], [data-sort], [data-clear], .nmbrs-turn summary, "
    ".nmbrs-prefs button"
)


def small_game_controls(page) -> list[dict]:
    """The game's controls on the page smaller than 44 x 44 CSS px, with their size."""
    return page.locator(CONTROLS).evaluate_all(
        """controls => controls.map(control => {
            const box = control.getBoundingClientRect();
            return {control: control.outerHTML.slice(0, 80), width: box.width,
                    height: box.height};
        }).filter(c => c.width < 44 || c.height < 44)"""
    )


def test_the_table_and_the_turn_fit_a_phone_in_german(open_browser, alice, bob):
    match = nmbrs_match(alice, bob)
    session = open_browser(locale="de-DE", **PHONE)
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    # The face-down pile: its name and its count each stay on one line, the number with
    # its word.
    deck = page.locator("[data-deck]")
    expect(deck).to_have_text("85 Karten")
    name = deck.locator("xpath=preceding-sibling::span[@class='pile-name']")
    expect(name).to_have_text("Verdeckter Stapel")
    for part in (name, deck):
        assert part.evaluate("e => e.getClientRects().length") == 1, part.inner_text()
    assert deck.evaluate("e => e.getBoundingClientRect().right") <= 390

    def fits() -> None:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert small_game_controls(page) == []

    expect(page.locator('[data-move="take"]')).to_be_visible()
    fits()
    answered(page, lambda: page.locator('[data-move="take"]').click())
    expect(page.locator("[data-ready]").first).to_be_visible()
    fits()
    card = state(match).hands[0][-1]
    answered(page, lambda: page.locator(f'a[data-pick="{card}"]').click())
    expect(page.locator('[data-move="discard"]')).to_be_visible()
    fits()
