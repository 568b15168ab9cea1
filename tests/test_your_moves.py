"""Finding your games: the tab title counts the matches waiting for your move, "next game"
goes to the most urgent other one, and the home page's list can be fetched on its own."""

import re

import pytest
from django.urls import reverse

from games import services
from tests.factories import make_match, play

pytestmark = pytest.mark.django_db


def title(page: str) -> str:
    return re.search(r"<title>(.*?)</title>", page, re.S).group(1)


def test_the_tab_title_counts_the_matches_waiting_for_your_move(client, alice, bob):
    first = make_match(alice, bob, seed=3)
    make_match(alice, bob, seed=4)
    services.start_solo(alice)  # a solo game never waits for anyone
    client.force_login(alice)
    assert title(client.get(reverse("home")).text).startswith("(2) ")
    play(first, alice)  # now bob owes the move in the first
    assert title(client.get(reverse("home")).text).startswith("(1) ")
    assert title(client.get(first.get_absolute_url()).text).startswith("(1) ")
    client.logout()
    assert not title(client.get(reverse("home")).text).startswith("(")


def test_next_game_goes_to_the_most_urgent_other_match(client, alice, bob):
    first = make_match(alice, bob, seed=3)
    second = make_match(alice, bob, seed=4)
    client.force_login(alice)
    page = client.get(first.get_absolute_url()).text
    assert f'href="{reverse("next_game")}?from={first.pk}" data-next-game' in page
    answer = client.get(reverse("next_game"), {"from": first.pk})
    assert answer.status_code == 302 and answer.url == second.get_absolute_url()
    assert client.get(reverse("next_game"), {"from": "x"}).status_code == 302  # no 500
    play(second, alice)
    assert "data-next-game" not in client.get(first.get_absolute_url()).text
    answer = client.get(reverse("next_game"), {"from": first.pk}, follow=True)
    assert answer.redirect_chain[-1][0] == reverse("home")
    assert "No other game is waiting for your move." in answer.text


def test_the_home_list_of_your_matches_comes_alone_for_its_update(client, alice, bob):
    match = make_match(alice, bob, seed=3)
    client.force_login(alice)
    part = client.get(reverse("home"), {"part": "matches"}, headers={"HX-Request": "true"}).text
    assert part.startswith('<div id="my-matches"') and 'data-moves-owed="1"' in part
    assert match.get_absolute_url() in part and "<html" not in part
    play(match, alice)
    part = client.get(reverse("home"), {"part": "matches"}, headers={"HX-Request": "true"}).text
    assert 'data-moves-owed="0"' in part and "Waiting for opponents" in part


def test_the_home_list_asks_the_same_number_of_queries_however_many_matches(client, alice, bob):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("home"), {"part": "matches"}, headers={"HX-Request": "true"})
        return len(queries)

    make_match(alice, bob, seed=3)
    client.force_login(alice)
    client.get(reverse("home"))  # the session and the caches warmed up
    one = count()
    make_match(alice, bob, seed=4)
    make_match(alice, bob, seed=5)
    assert count() == one


def test_the_owed_match_ids_are_the_matches_of_your_moves_in_order(alice, bob, carol):
    first = make_match(alice, bob, seed=3)
    second = make_match(alice, bob, carol, seed=4)
    third = make_match(alice, carol, seed=5, time_control="1d")
    services.start_solo(alice)  # a solo game never waits for anyone
    services.create_match(alice, players=2, time_control="1h", rated=False, invite=["carol"])
    play(first, alice)  # bob owes the move there now

    def ids(user) -> list[int]:
        return list(services.your_moves(user).values_list("match_id", flat=True))

    assert services.owed_match_ids(alice) == ids(alice) == [second.pk, third.pk]
    for user in (bob, carol):
        assert services.owed_match_ids(user) == ids(user)
    assert services.owed_match_ids(bob) == [first.pk, second.pk]
