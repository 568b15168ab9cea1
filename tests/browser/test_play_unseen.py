"""A whole NMBR 9 game against a bot played with the keyboard alone, read from the page's
accessibility tree only, in English and in German: the player logs in and starts the game
with keys, hears each of the bot's moves in the live region, reads their own display in
words and places every tile by choosing a spot from the list, then confirming."""

import re
import time

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match, Move
from games.nmbr9 import Placement
from tests.browser.pages import answered, log_in, log_in_by_keyboard, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en": {
        "locale": "en-GB",
        "username": "Username:",
        "password": "Password:",
        "play bot": "Play a bot",
        "spots": re.compile(r"^Where the (\d) fits rotated (\d+)°: (\d+) spots?$"),
        "show": "Show it there",
        "confirm": "Confirm",
        "own": "Your display in words",
        "news": "The others' moves",
        "bot": "Display of bot-easy in words",
        "tile": "{n} on level {level} at x {x}, y {y}, rotated {angle}°",
        "told": "bot-easy placed the {n} on level {level}. At x {x}, y {y}, rotated {angle}°.",
        "over": "Game over",
    },
    "de": {
        "locale": "de-DE",
        "username": "Benutzername:",
        "password": "Passwort:",
        "play bot": "Gegen einen Bot spielen",
        "spots": re.compile(r"^Wohin mit (\d) \(um (\d+)° gedreht\): (\d+) passende Stellen?$"),
        "show": "Dort zeigen",
        "confirm": "Bestätigen",
        "own": "Deine Auslage in Worten",
        "news": "Die Züge der anderen",
        "bot": "Auslage von bot-easy in Worten",
        "tile": "{n} auf Ebene {level} bei x {x}, y {y}, um {angle}° gedreht",
        "told": "bot-easy hat eine {n} auf Ebene {level} gelegt. Bei x {x}, y {y}, um {angle}° "
        "gedreht.",
        "over": "Spiel vorbei",
    },
}


def level_in(board: list[tuple[Placement, int]], placement: Placement) -> int:
    """The level of ``placement`` on ``board``: the highest, as the same tile placed at the
    same spot again (a number comes twice) lies on the one placed before."""
    return max(level for p, level in board if p == placement)


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_whole_game_against_a_bot_with_the_keyboard_alone(
    open_asgi_browser, celery_worker, alice, language
):
    words = WORDS[language]
    session = open_asgi_browser(locale=words["locale"])
    page = log_in_by_keyboard(session, "alice", words)
    play_bot = page.get_by_role("button", name=words["play bot"], exact=True).first
    tab_to(page, play_bot)  # the first game's, NMBR 9, with its easy bot chosen
    page.keyboard.press("Enter")
    spots = page.get_by_role("combobox", name=words["spots"])
    expect(spots).to_be_visible()
    match = Match.objects.get()
    assert match.game == "nmbr9" and match.seats.filter(bot="easy").exists()
    own = page.get_by_role("list", name=words["own"])
    expect(own).to_match_aria_snapshot(f'- list "{words["own"]}":\n  - listitem')
    news = page.get_by_role("status", name=words["news"])

    for round in range(1, 21):
        expect(spots).to_be_visible(timeout=20_000)
        expect(own.get_by_role("listitem")).to_have_count(max(round - 1, 1))
        tile = int(words["spots"].match(_name(spots))[1])
        tab_to(page, spots)
        page.keyboard.press("Home")  # the first spot: the highest level, the top row
        chosen = spots.aria_snapshot()
        page.keyboard.press("Tab")
        expect(page.get_by_role("button", name=words["show"])).to_be_focused()
        answered(page, lambda: page.keyboard.press("Enter"))
        confirm = page.get_by_role("button", name=words["confirm"], exact=True)
        expect(confirm).to_be_focused()  # the spot is shown: Confirm is at hand
        assert spots.aria_snapshot() == chosen
        answered(page, lambda: page.keyboard.press("Enter"))
        placed = Placement.parse(
            Move.objects.filter(match=match, seat__bot="").latest("ply").text.split()[1]
        )
        assert placed.number == tile
        # the bot's move of this round, told in the live region once the page shows it
        expect(page.get_by_role("list", name=words["bot"]).get_by_role("listitem")).to_have_count(
            round, timeout=20_000
        )
        bot_moves = Move.objects.filter(match=match, seat__bot="easy").order_by("ply")
        theirs = Placement.parse(bot_moves[round - 1].text.split()[1])
        board = _board(match, bot=True)
        expect(news).to_have_text(said(words["told"], theirs, board))
        expect(own).to_contain_text(said(words["tile"], placed, _board(match, bot=False)))

    expect(page.get_by_role("heading", name=words["over"])).to_be_visible()
    expect(own.get_by_role("listitem")).to_have_count(20)
    assert Move.objects.filter(match=match, seat__bot="").count() == 20
    assert Match.objects.get().is_finished


def _name(locator) -> str:
    """The combobox's name, read from its aria snapshot (again while a swap replaces it)."""
    for _ in range(50):
        found = re.search(r'combobox "([^"]+)"', locator.aria_snapshot())
        if found:
            return found[1]
        time.sleep(0.1)
    raise AssertionError(f"no name for {locator}")


def _board(match, *, bot: bool) -> list[tuple[Placement, int]]:
    from games import services

    seat = match.seats.get(bot="easy") if bot else match.seats.get(bot="")
    return list(services.load(match).state.board(seat.index).tiles)


def said(template: str, placement, board) -> str:
    """``template``'s words for ``placement`` on ``board`` (its level read from the board)."""
    return template.format(
        n=placement.number,
        level=level_in(board, placement),
        x=placement.x,
        y=placement.y,
        angle=placement.rotation * 90,
    )


def test_after_a_move_the_keyboard_is_at_the_next_tiles_confirm(open_browser, alice):
    """Enter on Confirm makes the move; the focus then waits on the next tile's Confirm,
    which says where the tile fits, with the list of spots the next stop: not at the top
    of the page (a keyboard user would Tab through it all)."""
    match = services.start_solo(alice, seed=4)
    page = log_in(open_browser(locale="en-GB"), "alice")
    page.goto(page.url.rstrip("/") + match.get_absolute_url())
    confirm = page.get_by_role("button", name="Confirm", exact=True)
    tab_to(page, confirm)
    answered(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator(".round strong")).to_have_text("2")
    expect(confirm).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("combobox", name=re.compile("^Where the "))).to_be_focused()
