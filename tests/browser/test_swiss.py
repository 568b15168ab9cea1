"""A swiss tournament of nmbrs! in headless Chromium: alice creates it on its page, three
others join, and while its tables are finished through the services (a resignation each)
her page, left open, shows round 2 paired and the standings moving, up to the final ones;
a real-time swiss started by the clock at its start while its page waits; then the pages in
German on a phone."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Seat, Tournament
from games.services.features import swiss_rounds, tournaments
from games.services.match import play
from nmbr9site import processes
from tests.browser.pages import PHONE, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def finish_round(tournament: Tournament, number: int) -> None:
    """Every table of the round over: its second seat resigns."""
    for match in tournament.tables.filter(round=number):
        seat = Seat.objects.select_related("player").get(match=match, index=1)
        play.resign(match.pk, seat.player)


def test_a_swiss_of_four_played_to_the_end_while_its_page_follows(open_browser, alice, bob, carol):
    dave = User.objects.create_user("dave", "dave@example.com", "a-long-password")
    page = log_in(open_browser(), "alice")
    page.get_by_role("link", name="Tournaments").click()
    page.get_by_role("link", name="Create a swiss tournament of nmbrs!").click()
    page.fill("#id_name", "Browser swiss")
    page.select_option("#id_table_size", "2")
    page.fill("#id_rounds", "2")
    page.select_option("#id_pace", "1d")
    starts = timezone.now() + timedelta(hours=1)
    page.fill("#id_starts", starts.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("h1")).to_have_text("Browser swiss")
    tournament = Tournament.objects.get()
    for player in (bob, carol, dave):
        tournaments.join(tournament.pk, player)

    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    swiss_rounds.start(tournament.pk)  # as the sweep does at the start
    page.reload()
    expect(page.locator("[data-round='1']")).to_be_visible()
    expect(page.locator("[data-table]")).to_have_count(2)
    expect(page.get_by_role("link", name="Your game in round 1")).to_be_visible()

    finish_round(tournament, 1)  # the last table's end pairs round 2 at once
    expect(page.locator("[data-round='2']")).to_be_visible(timeout=15_000)
    expect(page.locator("[data-table]")).to_have_count(4)
    expect(page.get_by_role("link", name="Your game in round 2")).to_be_visible()
    leaders = page.locator("[data-swiss-standings] tbody tr [data-points]")
    expect(leaders.first).to_have_text("1")

    finish_round(tournament, 2)
    expect(leaders.first).to_have_text("2", timeout=15_000)
    expect(leaders.last).to_have_text("0")
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    first = tournament.tables.filter(round=2).order_by("pk").first()
    page.get_by_role("link", name="Table 1").first.click()
    expect(page).to_have_url(re.compile(f"{first.get_absolute_url()}$"))


def test_a_real_time_swiss_begins_on_time_while_its_page_waits(
    open_browser, celery_worker, celery_queue, alice, bob, tmp_path
):
    """No sweep runs: the clock (its own process) and the fast worker start it and pair its
    first round, and alice's page, open before the start, opens her table by itself."""
    tournament = swiss_rounds.create(
        alice,
        name="Quick swiss",
        rounds=1,
        table_size=2,
        pace="15s",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(tournament.pk, bob)
    ticking = processes.clock(queue=celery_queue, log=tmp_path / "clock.log")
    try:
        session = open_browser()
        page = log_in(session, "alice")
        session.goto(tournament.get_absolute_url())
        expect(page.get_by_role("button", name="Leave the tournament")).to_be_visible()
        Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
        # the page opens her table by itself: its first move's clock runs
        expect(page).to_have_url(re.compile(r"/game/\d+/$"), timeout=60_000)
        table = tournament.tables.get()
        assert table.realtime and table.round == 1
        expect(page).to_have_url(re.compile(f"{table.get_absolute_url()}$"))
    finally:
        processes.stop(ticking)


def test_the_swiss_pages_in_german_on_a_phone(open_browser, alice, bob):
    tournament = swiss_rounds.create(
        alice,
        name="Schweizer Pokal",
        rounds=2,
        table_size=2,
        pace="30s",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(tournament.pk, bob)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    swiss_rounds.start(tournament.pk)
    session = open_browser(locale="de-DE", **PHONE)
    page = log_in(session, "alice")
    for path in (tournament.get_absolute_url(), "/tournaments/", "/tournaments/new/swiss/"):
        session.goto(path)
        expect(page.locator("html")).to_have_attribute("lang", "de")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, (path, width)
    session.goto(tournament.get_absolute_url())
    shown = "(e) => e.scrollWidth <= e.clientWidth"
    assert page.locator(".table-scroll").evaluate(shown)  # every column of the standings
    expect(page.get_by_role("link", name="Deine Partie in Runde 1")).to_be_visible()
    expect(page.get_by_role("heading", name="Runde 1")).to_be_visible()
