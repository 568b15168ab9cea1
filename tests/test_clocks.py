"""Countdowns count in the server's time: every countdown brings the server's clock as it was
drawn (data-now), and a player's page that owes a move says so (data-owes: the deadline,
data-ply), so that static/js/live.js fetches it again once the time is up."""

import re
import time
from datetime import timedelta

import pytest
from django.urls import reverse

from tests.factories import a_running_match, make_match, play, seat_of

pytestmark = pytest.mark.django_db

COUNTDOWN = re.compile(r"<time [^>]*data-countdown[^>]*>")


def countdowns(html: str) -> list[str]:
    return COUNTDOWN.findall(html)


def play_section(html: str) -> str:
    return re.search(r'<section id="play"[^>]*>', html).group(0)


def server_now(tag: str) -> int:
    return int(re.search(r'data-now="(\d+)"', tag).group(1))


@pytest.mark.parametrize("game", ["nmbr9", "nmbrs"])
def test_a_countdown_brings_the_server_time_and_is_a_quiet_timer(client, alice, bob, game):
    match = a_running_match(alice, bob, game, theirs=False)
    client.force_login(alice)
    before = time.time() * 1000
    html = client.get(match.get_absolute_url()).text
    after = time.time() * 1000
    (tag,) = countdowns(html)
    assert before - 1 <= server_now(tag) <= after + 1
    assert 'role="timer"' in tag and "aria-live" not in tag


def test_the_lists_of_matches_bring_the_server_time_with_their_countdowns(client, alice, bob):
    make_match(alice, bob)
    client.force_login(alice)
    tags = countdowns(client.get(reverse("home")).text)
    assert tags and all(server_now(tag) > 0 for tag in tags)


@pytest.mark.parametrize("game", ["nmbr9", "nmbrs"])
def test_the_page_of_a_player_who_owes_a_move_says_which_and_until_when(client, alice, bob, game):
    match = a_running_match(alice, bob, game, theirs=False)
    client.force_login(alice)
    section = play_section(client.get(match.get_absolute_url()).text)
    deadline = seat_of(match, alice).deadline
    assert f'data-owes="{deadline.isoformat()}"' in section
    assert 'data-ply="0"' in section and f'data-page="{match.get_absolute_url()}"' in section


def test_a_page_waiting_for_the_others_owes_nothing(client, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    client.force_login(alice)
    section = play_section(client.get(match.get_absolute_url()).text)
    assert "data-owes" not in section and "data-page" not in section
    client.force_login(bob)  # bob still owes his tile
    assert "data-owes" in play_section(client.get(match.get_absolute_url()).text)


def test_a_spectator_owes_nothing(client, alice, bob, carol):
    match = make_match(alice, bob)
    client.force_login(carol)
    html = client.get(match.get_absolute_url()).text
    assert "data-owes" not in play_section(html) and countdowns(html) == []


@pytest.mark.parametrize("game", ["nmbr9", "nmbrs"])
def test_a_real_time_countdown_is_marked_quick_and_a_correspondence_one_is_not(
    client, alice, bob, game
):
    """static/js/site.js shows a correspondence countdown under an hour as urgent; a
    real-time one (data-quick) only in its last seconds, on the page and the home page."""
    match = a_running_match(alice, bob, game, theirs=False)
    client.force_login(alice)
    (slow,) = countdowns(client.get(match.get_absolute_url()).text)
    assert "data-quick" not in slow
    match.time_per_move = timedelta(seconds=15)
    match.save(update_fields=["time_per_move"])
    (quick,) = countdowns(client.get(match.get_absolute_url()).text)
    assert "data-quick" in quick
    home = countdowns(client.get(reverse("home")).text)
    assert home and all("data-quick" in tag for tag in home)


def test_the_time_left_of_the_player_waited_for_is_a_quick_clock_in_real_time(client, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    match.time_per_move = timedelta(seconds=15)
    match.save(update_fields=["time_per_move"])
    play(match, alice)
    client.force_login(alice)  # waits for bob, whose time is shown
    tags = countdowns(client.get(match.get_absolute_url()).text)
    assert tags and all("data-quick" in tag for tag in tags)
