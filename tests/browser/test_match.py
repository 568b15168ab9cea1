"""Two players in two browsers play a rated match to the end and see their ratings move."""

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match, Seat
from games.nmbr9.policy import choose
from tests.browser.pages import answered, log_in
from tests.factories import make_match, play

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_two_players_play_a_rated_match_to_the_end(open_browser, celery_worker, alice, bob):
    alice_page = log_in(open_browser(), "alice")
    bob_page = log_in(open_browser(), "bob")

    alice_page.get_by_role("link", name="New match").click()
    alice_page.select_option("#id_players", "2")
    alice_page.check("input[name=pace][value=rounds]")
    alice_page.select_option("#id_time_control", "1h")
    alice_page.fill("#id_invite", "bob")
    alice_page.uncheck("#id_open")
    alice_page.get_by_role("button", name="Create the match").click()
    expect(alice_page.get_by_text("Waiting for players")).to_be_visible()
    match = Match.objects.get()
    Match.objects.filter(pk=match.pk).update(seed=7)  # before any card is revealed

    bob_page.goto(bob_page.url)
    bob_page.locator(f'[data-match="{match.pk}"] a').first.click()
    bob_page.get_by_role("button", name="Accept").click()
    expect(bob_page.locator("[data-current]")).to_be_visible()
    # Alice's waiting room notices the start by itself.
    expect(alice_page.locator("[data-current]")).to_be_visible(timeout=12_000)

    match.refresh_from_db()
    for round in range(1, 21):
        # Alice moves her tile to where the policy would put it; Bob takes the first spot.
        game = services.load(match).state
        p = choose(game.board(0), game.current_number(0))
        alice_page.goto(f"{alice_page.url.split('?')[0]}?x={p.x}&y={p.y}&rotation={p.rotation}")
        for page in (alice_page, bob_page):
            expect(page.locator(".round strong")).to_have_text(str(round))
            answered(page, lambda page=page: page.keyboard.press("Enter"))
        if round == 1:
            expect(alice_page.locator("[data-waiting]")).to_contain_text("Waiting for")
        if round < 20:
            alice_page.reload()

    for page in (alice_page, bob_page):
        page.reload()
        expect(page.get_by_text("Game over")).to_be_visible()
        expect(page.locator("[data-rank]")).to_have_count(2)
    for _ in range(50):
        alice_page.reload()
        if alice_page.locator("[data-rating-change]").count() == 2:
            break
        alice_page.wait_for_timeout(200)
    expect(alice_page.locator("[data-rating-change]")).to_have_count(2)
    alice_page.get_by_role("link", name="Replay the match round by round").click()
    expect(alice_page.locator("[data-replay-round]")).to_have_text("After round 20 of 20")
    alice_page.goto(alice_page.url.split("/game/")[0] + "/@/alice/")
    expect(alice_page.locator('[data-stat="rated"]')).to_have_text("1")
    scores = dict(Seat.objects.filter(match=match).values_list("player__username", "score"))
    assert scores["alice"] > scores["bob"]
    rating = alice_page.locator('[data-stat="rating"]').inner_text()
    assert rating == "1520?", (rating, scores)


def test_the_opponent_resigning_ends_a_match_of_two(open_browser, alice, bob):
    match = make_match(alice, bob, pace="rounds", removed=4)
    hers = open_browser()
    alice_page = log_in(hers, "alice")
    hers.goto("/")
    expect(alice_page.locator("[data-your-move]")).to_be_visible()
    play(match, alice)
    hers.goto(match.get_absolute_url())
    expect(alice_page.locator("[data-waiting]")).to_contain_text("Waiting for")

    his = open_browser()
    bob_page = log_in(his, "bob")
    his.goto(match.get_absolute_url())
    bob_page.get_by_text("Resign…").click()
    bob_page.get_by_role("button", name="Resign the match").click()
    expect(bob_page.get_by_text("Game over")).to_be_visible()

    # Alice's page, waiting for Bob's move, notices by itself that she won.
    expect(alice_page.get_by_text("Game over")).to_be_visible(timeout=12_000)
    expect(alice_page.locator("[data-rank]")).to_have_count(2)
    hers.goto("/")
    expect(alice_page.locator("[data-no-matches]")).to_be_visible()
    expect(alice_page.locator("[data-your-move]")).to_have_count(0)
