"""A duplicate tournament clicked through in headless Chromium: alice creates it, bob joins,
both play their game to the end, and the standings on the page follow; then the page in
German on a phone."""

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.forms import suggested_start
from games.models import Entry, Tournament
from games.services.features import tournaments
from tests.browser.pages import PHONE, log_in, play_out, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_two_players_play_a_duplicate_and_the_standings_follow(open_browser, alice, bob):
    page = log_in(open_browser(timezone_id="UTC"), "alice")  # the start is typed in UTC
    page.get_by_role("link", name="Tournaments").click()
    page.get_by_role("link", name="Create a tournament").click()
    page.fill("#id_name", "Browser cup")
    page.fill("#id_games", "1")
    expect(page.locator("#id_starts")).not_to_have_value("")  # a start is suggested
    starts = timezone.now() + timedelta(hours=1)
    page.fill("#id_starts", starts.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("h1")).to_have_text("Browser cup")
    tournament = Tournament.objects.get()

    bobs = log_in(open_browser(), "bob")
    bobs.goto(page.url)
    bobs.get_by_role("button", name="Join the tournament").click()
    expect(bobs.locator("[data-entry=bob]")).to_be_visible()
    assert Entry.objects.filter(tournament=tournament).count() == 2

    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    tournaments.start(tournament.pk)  # as the sweep does at the start
    page.reload()
    bobs.reload()

    page.get_by_role("button", name="Play game 1").click()
    play_out(page, first_round=1)
    expect(page.get_by_text("Game over")).to_be_visible()
    page.locator("[data-back-to-tournament]").click()
    expect(page.locator("[data-entry=alice] [data-percent]")).to_have_text("100.0%")
    expect(page.locator("[data-entry=bob] [data-percent]")).to_have_text("–")  # not played
    expect(page.locator("[data-compare='1']")).to_be_visible()

    bobs.get_by_role("button", name="Play game 1").click()
    play_out(bobs, first_round=1)
    expect(bobs.get_by_text("Game over")).to_be_visible()
    # alice's page, left open, polls its standings: bob's game shows there too
    expect(page.locator("[data-entry=bob] [data-percent]")).to_have_text("50.0%", timeout=15_000)
    expect(page.locator("[data-entry=alice] [data-percent]")).to_have_text("50.0%")
    page.locator("[data-compare='1']").click()
    expect(page.locator("[data-display-of]")).to_have_count(2)


def test_a_tournament_page_in_german_on_a_phone(open_browser, alice, bob):
    tournament = tournaments.create(
        alice,
        name="Pokal",
        game="nmbr9",
        games=2,
        window="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(tournament.pk, bob)
    session = open_browser(locale="de-DE", **PHONE)
    page = log_in(session, "alice")
    for path in (tournament.get_absolute_url(), "/tournaments/", "/tournaments/new/"):
        session.goto(path)
        expect(page.locator("html")).to_have_attribute("lang", "de")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, (path, width)
    session.goto(tournament.get_absolute_url())
    expect(page.get_by_role("button", name="Turnier verlassen")).to_be_visible()
    # the rules are a tap away on a phone; every column of the standings is on the screen
    rules = page.locator("[data-rules]")
    expect(rules.locator("summary")).to_have_text("Regeln")
    expect(rules).not_to_have_attribute("open", "")
    rules.locator("summary").click()
    expect(rules.locator("p").first).to_be_visible()
    assert fits(page, "[data-standings] .table-scroll")
    percents = page.locator("[data-standings] td[data-percent]")
    assert {cell.evaluate("(e) => getComputedStyle(e).whiteSpace") for cell in percents.all()} == {
        "nowrap"
    }  # "87,5%" never breaks before its "%"
    session.goto("/tournaments/")
    assert fits(page, ".table-scroll")
    breaks = "(e) => getComputedStyle(e).overflowWrap"
    cells = page.locator("[data-tournaments] td")
    assert {cell.evaluate(breaks) for cell in cells.all()} == {"normal"}  # never "Duplik|at"
    session.goto("/tournaments/new/")
    assert page.locator("#id_starts").bounding_box()["height"] >= 44
    session.goto("/notifications/")
    heading = page.locator("h1")
    size = heading.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")
    assert heading.bounding_box()["height"] < 2 * size  # "Benachrichtigungen" on one line


def test_a_start_is_typed_in_the_players_own_time_zone(open_browser, alice):
    berlin = ZoneInfo("Europe/Berlin")
    session = open_browser(locale="de-DE", timezone_id="Europe/Berlin", **PHONE)
    page = log_in(session, "alice")
    session.goto("/tournaments/new/")
    field = page.get_by_label("Beginn (deine Zeit: Europe/Berlin)")
    suggested = suggested_start().astimezone(berlin)
    expect(field).to_have_value(suggested.strftime("%Y-%m-%dT%H:%M"))
    typed = (timezone.now() + timedelta(days=2)).astimezone(berlin)
    typed = typed.replace(hour=20, minute=0, second=0, microsecond=0)
    page.fill("#id_name", "Abendpokal")
    field.fill(typed.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="Turnier erstellen").click()
    expect(page.locator("h1")).to_have_text("Abendpokal")
    assert Tournament.objects.get().starts == typed  # 20:00 in Berlin, kept in UTC
    expect(page.locator("time[data-local=zoned]").first).to_contain_text("20:00")


def test_the_home_page_leads_to_an_open_tournament_game_by_keyboard_on_a_phone(
    open_browser, alice, bob
):
    tournament = tournaments.create(
        alice,
        name="Pokal",
        game="nmbr9",
        games=1,
        window="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(tournament.pk, bob)
    session = open_browser(locale="de-DE", **PHONE)
    page = log_in(session, "bob")
    session.goto("/")
    ahead = page.locator("[data-tournaments-ahead]")  # before the start: where it is, when
    expect(ahead.get_by_role("heading")).to_have_text("Deine kommenden Turniere")
    expect(ahead.locator("li")).to_contain_text("Pokal · beginnt")
    tab_to(page, ahead.get_by_role("link", name="Pokal"))
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/tournaments/{tournament.pk}/$"))
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    session.goto("/")
    expect(ahead).to_have_count(0)
    listed = page.locator("[data-tournament-games]")
    expect(listed.get_by_role("heading")).to_have_text("Deine Turnierspiele")
    play = listed.get_by_role("button", name="Spiel 1 spielen")
    tab_to(page, play)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/game/\d+/$"))
    expect(page.locator("h1")).to_contain_text("Pokal: Spiel 1")
    session.goto("/")
    expect(listed.get_by_role("link", name="Weiterspielen")).to_be_visible()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width


def fits(page, selector: str) -> bool:
    """Every box ``selector`` finds shows all it holds without scrolling sideways."""
    return page.evaluate(
        "(s) => [...document.querySelectorAll(s)].every(e => e.scrollWidth <= e.clientWidth)",
        selector,
    )


def test_a_tournaments_rules_are_open_on_a_wide_screen(open_browser, alice):
    tournament = tournaments.create(
        alice,
        name="Pokal",
        game="nmbr9",
        games=2,
        window="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    session = open_browser()
    session.goto(tournament.get_absolute_url())
    expect(session.page.locator("[data-rules]")).to_have_attribute("open", "")
