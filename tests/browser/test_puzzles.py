"""Daily puzzle and puzzle challenge, clicked through in headless Chromium."""

import pytest
from playwright.sync_api import expect

from games.models import Match, Seat
from games.services.features import puzzles
from tests.browser.pages import answered, log_in, play_out

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def reload_until(page, selector: str, tries: int = 60) -> None:
    for _ in range(tries):
        if page.locator(selector).count():
            break
        page.wait_for_timeout(250)
        page.reload()
    expect(page.locator(selector).first).to_be_visible()


def test_the_daily_puzzle_from_home_to_leaderboard(open_browser, celery_worker, alice):
    page = log_in(open_browser(), "alice")
    page.get_by_role("link", name="Today's daily puzzle").click()
    expect(page.get_by_role("heading", name="Daily puzzle")).to_be_visible()
    expect(page.locator("[data-par]")).to_have_count(0)
    page.get_by_role("button", name="Play today's puzzle").click()
    expect(page.locator("svg .tile")).to_have_count(1)
    play_out(page)
    expect(page.get_by_text("Game over")).to_be_visible()
    score = Seat.objects.get(player__username="alice").score
    expect(page.locator("[data-final-score]")).to_have_text(str(score))
    page.get_by_role("link", name="See today's leaderboard").click()
    expect(page.locator("[data-leaderboard]")).to_contain_text("alice")
    expect(page.locator("[data-daily-score]")).to_have_text(str(score))
    expect(page.locator("[data-streak]")).to_have_text("1")
    reload_until(page, "[data-par]:text-matches('^[0-9]+$')")
    par = puzzles.daily_puzzle().par
    assert int(page.locator("[data-par]").inner_text()) == par

    # her game, then the par game beside it, round by round
    site = page.url.split("/daily")[0]
    page.goto(site + Match.objects.get().get_absolute_url())
    page.get_by_role("link", name="Replay your game next to the par game").click()
    shown = page.locator("[data-par-display]")
    expect(shown).to_contain_text(f"Par game · {par} points")
    expect(shown).to_contain_text("20 tiles")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("[data-replay-round]")).to_contain_text("After round 19")
    expect(shown).to_contain_text("19 tiles")

    # another go the same day: practice, and its end says so instead of offering the board
    page.goto(site + "/daily/")
    expect(page.get_by_text("A new puzzle comes every day at midnight UTC.")).to_be_visible()
    page.get_by_role("button", name="Play again for practice").click()
    expect(page.locator("svg .tile")).to_have_count(1)
    play_out(page)
    expect(page.get_by_text("Game over")).to_be_visible()
    expect(page.locator("[data-practice]")).to_be_visible()
    expect(page.get_by_role("link", name="See today's leaderboard")).to_have_count(0)


def test_a_challenge_is_picked_played_and_rated(open_browser, celery_worker, alice, bob):
    alice = open_browser()
    alice_page = log_in(alice, "alice")
    bob_page = log_in(open_browser(), "bob")
    puzzles.create_puzzles(4)
    alice.goto("/@/bob/")
    alice_page.get_by_role("link", name="Challenge to a puzzle").click()
    expect(alice_page.locator("#id_invite")).to_have_value("bob")
    alice_page.get_by_role("button", name="Show me two puzzles").click()
    expect(alice_page.locator("[data-puzzle]")).to_have_count(2)
    chosen = alice_page.locator("[data-puzzle]").nth(1).get_attribute("data-puzzle")
    alice_page.locator(".offer").nth(1).get_by_role("button").click()
    expect(alice_page.get_by_text("Waiting for players")).to_be_visible()
    match = Match.objects.get(kind=Match.Kind.CHALLENGE)
    assert str(match.puzzle_id) == chosen

    bob_page.reload()
    bob_page.locator(f'[data-match="{match.pk}"] a').first.click()
    bob_page.get_by_role("button", name="Accept").click()
    expect(bob_page.locator("[data-current]")).to_be_visible()
    alice_page.reload()
    play_out(alice_page)
    expect(alice_page.locator("[data-waiting]")).to_be_visible()
    # Bob plays differently from Alice for his first tile: one step to the left if legal.
    answered(bob_page, lambda: bob_page.keyboard.press("ArrowLeft"))
    if bob_page.get_by_role("button", name="Confirm").is_disabled():
        answered(bob_page, lambda: bob_page.keyboard.press("ArrowRight"))
    play_out(bob_page)
    for page in (alice_page, bob_page):
        reload_until(page, "[data-rating-change]")
        expect(page.locator("[data-rank]")).to_have_count(2)
        expect(page.get_by_role("button", name="Rematch: two new puzzles")).to_be_visible()
    ranks = dict(Seat.objects.filter(match=match).values_list("player__username", "rank"))
    bob_page.locator(".who").click()
    bob_page.locator("[data-nav-profile]").click()
    rating = bob_page.locator('[data-stat="puzzle-rating"]').inner_text()
    if ranks["alice"] == ranks["bob"]:
        assert rating == "1500?"
    else:
        assert rating == ("1520?" if ranks["bob"] == 1 else "1480?")


def test_a_practice_puzzle_moves_the_puzzle_rating_shown_on_profile_and_lists(
    open_browser, celery_worker, alice, bob
):
    from games.models import Puzzle, Rating

    (puzzle,) = puzzles.create_puzzles(1)
    Puzzle.objects.filter(pk=puzzle.pk).update(par=1)  # any score beats it: a full win
    Rating.objects.create(player=bob, game="nmbr9", pool="solving", value=1700, games=30)
    session = open_browser()
    page = log_in(session, "alice")
    session.goto(f"/puzzle/{puzzle.pk}/")
    expect(page.locator("[data-puzzle-rating]")).to_have_text("Rating 1500?")
    page.get_by_role("button", name="Play for practice").click()
    play_out(page)
    session.goto(f"/puzzle/{puzzle.pk}/")
    reload_until(page, "[data-puzzle-rating]:has-text('Rating 1480?')")
    page.locator(".who").click()
    page.locator("[data-nav-profile]").click()
    expect(page.locator('[data-stat="solving"]')).to_have_text("1520?")

    session.goto("/leaderboard/")
    page.get_by_role("link", name="NMBR 9: Puzzles").click()
    expect(page.locator("table.standings")).to_contain_text("bob")
    expect(page.locator("[data-absent]")).to_contain_text("you have played 1")
    page.get_by_role("link", name="Daily puzzle streaks").click()
    expect(page.locator("[data-board]")).to_have_text("Daily puzzle streaks")
    page.get_by_role("link", name="NMBR 9: best solo scores").click()
    expect(page.locator("[data-absent]")).to_contain_text("not finished a solo game")
