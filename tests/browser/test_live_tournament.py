"""A live duplicate in headless Chromium: alice creates it on the page (English, desktop),
bob joins (German, on a phone), the start comes, both go to their game from the tournament's
page and place their cards round by round while carol watches the leaderboard move on the
tournament's page; a round bob lets pass ends by its time, his card placed for him."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Match, Move, Puzzle, Tournament
from games.services.features import live_duplicate
from games.services.match import play
from tests.browser.pages import PHONE, answered, log_in, tab_to
from tests.factories import break_over

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def confirm(page, name: str) -> None:
    """Place the card shown on the spot the page suggests."""
    button = page.get_by_role("button", name=name, exact=True)
    expect(button).to_be_enabled()
    answered(page, button.click)


def test_a_live_duplicate_played_round_by_round_in_two_browsers(
    open_asgi_browser, alice, bob, carol
):
    alices = open_asgi_browser()
    page = log_in(alices, "alice")
    page.get_by_role("link", name="Tournaments").click()
    page.get_by_role("link", name="Create a tournament").click()
    expect(page.locator("[data-window-field]")).to_be_visible()
    expect(page.locator("[data-speed-field]")).to_be_hidden()
    page.get_by_label("Live (everybody at once, 15, 30 or 60 seconds a round)").check()
    expect(page.locator("[data-window-field]")).to_be_hidden()
    page.select_option("#id_speed", "60s")
    page.fill("#id_name", "Live cup")
    page.fill("#id_games", "2")
    starts = timezone.now() + timedelta(hours=1)
    page.fill("#id_starts", starts.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("h1")).to_have_text("Live cup")
    expect(page.locator(".settings-line")).to_contain_text("Live · 60 s a round")
    tournament = Tournament.objects.get()
    assert tournament.mode == Tournament.Mode.LIVE

    bobs = open_asgi_browser(locale="de-DE", **PHONE)
    bob_page = log_in(bobs, "bob")
    bobs.goto(tournament.get_absolute_url())
    bob_page.get_by_role("button", name="Dem Turnier beitreten").click()
    expect(bob_page.locator("[data-entry=bob]")).to_be_visible()

    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    live_duplicate.run_due()  # as the clock does once the start is due
    deal = Puzzle.objects.get(tournament=tournament, number=1)

    watching = open_asgi_browser()
    board = log_in(watching, "carol")
    watching.goto(tournament.get_absolute_url())
    rounds = board.locator("[data-live-round]")
    expect(rounds).to_have_text("Game 1 of 2 · round 1 of 20")
    expect(board.locator("[data-live-board] [data-countdown]")).to_be_visible()
    expect(board.locator("[data-go-to-game]")).to_have_count(0)

    # The entrants' pages open before the start open their games by themselves (their
    # standings' poll): the round's clock runs.
    for player, session in ((alice, page), (bob, bob_page)):
        first = Match.objects.get(puzzle=deal, seats__player=player).get_absolute_url()
        expect(session).to_have_url(re.compile(re.escape(first) + "$"), timeout=20_000)
    bobs.goto(tournament.get_absolute_url())
    expect(bob_page.locator("[data-live-round]")).to_have_text("Spiel 1 von 2 · Runde 1 von 20")
    width = bob_page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    bob_page.get_by_role("link", name="Zu deinem Spiel").click()
    for player in (page, bob_page):
        expect(player.locator(".round strong")).to_have_text("1")
        expect(player.locator("[data-live-leaders]")).to_be_visible()

    for round in (1, 2):
        confirm(page, "Confirm")
        expect(page.locator("[data-live-waiting]")).to_be_visible()
        confirm(bob_page, "Bestätigen")
        # the last card awaited deals the next round to both at once
        for player in (page, bob_page):
            expect(player.locator(".round strong")).to_have_text(str(round + 1))
        expect(rounds).to_have_text(f"Game 1 of 2 · round {round + 1} of 20")
    scores = {
        m.seats.get().player.username: m.seats.get().score
        for m in Match.objects.filter(puzzle=deal)
    }
    for name, score in scores.items():
        line = board.locator(f"[data-live-line={name}] [data-live-score]")
        expect(line).to_have_text(str(score))

    # bob lets the round pass: its time is up, his card is placed for him
    confirm(page, "Confirm")
    Puzzle.objects.filter(pk=deal.pk).update(due=timezone.now())
    assert live_duplicate.run_due()["close"] == 1
    for player in (page, bob_page):
        expect(player.locator(".round strong")).to_have_text("4")
    expect(bob_page.locator("[data-strike-warning]")).to_contain_text(
        "Verpasst du auch den nächsten, bist du aus diesem Spiel raus."
    )
    expect(page.locator("[data-strike-warning]")).to_have_count(0)
    expect(rounds).to_have_text("Game 1 of 2 · round 4 of 20")
    bobs_game = Match.objects.get(puzzle=deal, seats__player=bob)
    assert Move.objects.filter(match=bobs_game, auto=True).count() == 1
    assert Move.objects.filter(match=bobs_game).count() == 3

    # game 1 over for both (alice first): each page goes on to game 2 by itself
    for player in (alice, bob):
        play.resign(Match.objects.get(puzzle=deal, seats__player=player).pk, player)
        if player == alice:
            waiting = page.locator("[data-next-tournament-poll]")
            expect(waiting).to_have_text(
                "Your next game opens here by itself as soon as it begins. "
                "The others are still playing this game."
            )
            expect(page.locator("[data-live-leaders]")).to_have_count(0)
    # a pause for both to see how game 1 ended, its end told on each page
    expect(page.locator("[data-next-tournament-poll] [data-countdown]")).to_be_visible()
    expect(page.locator("[data-next-tournament-poll]")).to_contain_text("Game 2 begins in")
    expect(bob_page.locator("[data-next-tournament-poll]")).to_contain_text("Spiel 2 beginnt in")
    width = bob_page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    break_over(tournament)
    second = Puzzle.objects.get(tournament=tournament, number=2)
    for player, session in ((alice, page), (bob, bob_page)):
        match = Match.objects.get(puzzle=second, seats__player=player)
        # a look every 2 s, then the game's page loads: allowed as long as the start's wait
        expect(session).to_have_url(
            re.compile(re.escape(match.get_absolute_url()) + "$"), timeout=20_000
        )
        expect(session.locator(".round strong")).to_have_text("1")
    expect(rounds).to_have_text("Game 2 of 2 · round 1 of 20", timeout=10_000)

    bobs.goto("/tournaments/")
    expect(bob_page.locator(f"[data-live-game='{tournament.pk}']")).to_be_visible()
    expect(bob_page.locator("[data-live-mode]")).to_have_text("Live")

    # bob leaves the tournament from his game (asked first): alice goes on without him
    bobs.goto(Match.objects.get(puzzle=second, seats__player=bob).get_absolute_url())
    # with the keyboard alone: the disclosure, then its button
    summary = bob_page.locator("[data-withdraw-confirm] summary")
    expect(summary).to_have_text("Turnier verlassen…")
    tab_to(bob_page, summary)
    bob_page.keyboard.press("Enter")
    tab_to(bob_page, bob_page.get_by_role("button", name="Turnier verlassen", exact=True))
    bob_page.keyboard.press("Enter")
    expect(bob_page.locator("h1")).to_have_text("Live cup")
    expect(bob_page.locator("[data-withdrawn]")).to_have_text(
        "Du hast das Turnier verlassen: Dir werden keine Spiele mehr ausgeteilt."
    )
    expect(bob_page.locator("[data-entry=bob]")).to_contain_text("(zurückgezogen)")
    width = bob_page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    confirm(page, "Confirm")  # the round awaits nobody else
    expect(page.locator(".round strong")).to_have_text("2")
