"""The forms that start a game offer what its rules allow: each game's player counts, the
options that go with the other choices (the page's script enables them by the conditions
the form writes), and on the solo form neither the pace nor the word on bots."""

import json
import re

import pytest
from django.urls import reverse

from games.models import Match

pytestmark = pytest.mark.django_db

MATCH = {"players": "2", "time_control": "1d", "rated": "on", "open": "on"}


def player_counts(page: str) -> list[int]:
    select = re.search(r'<select name="players".*?</select>', page, re.S).group(0)
    return [int(v) for v in re.findall(r'<option value="(\d+)"', select)]


def conditions(page: str, marker: str) -> list[dict]:
    """The conditions written on the controls whose tag holds ``marker``."""
    tags = re.findall(rf"<(?:input|select|div|p)[^>]*{marker}[^>]*>", page)
    return [
        json.loads(
            re.search(r'data-(?:enabled|shown)-when="([^"]+)"', tag).group(1).replace("&quot;", '"')
        )
        for tag in tags
        if "-when=" in tag
    ]


@pytest.mark.parametrize(
    ("game", "counts"), [("nmbr9", [2, 3, 4, 5, 6]), ("nmbrs", list(range(2, 9)))]
)
def test_the_match_form_offers_only_the_games_player_counts(client, alice, game, counts):
    client.force_login(alice)
    assert player_counts(client.get(reverse("new_match"), {"game": game}).text) == counts


def test_a_player_count_the_game_does_not_allow_is_refused_by_the_form(client, alice):
    client.force_login(alice)
    data = {**MATCH, "game": "nmbr9", "players": "7", "pace": "rounds", "removed": "0"}
    response = client.post(reverse("new_match"), data)
    assert response.status_code == 400
    assert "Select a valid choice. 7 is not one of the available choices." in response.text
    assert Match.objects.count() == 0


def test_the_options_say_what_they_go_with(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_match")).text
    variants = ["1", "2", "3", "4"]
    assert conditions(page, 'value="two_of_three"') == [{"players": variants}]
    assert conditions(page, 'value="level_to_level"') == [{"players": variants, "pace": ["rounds"]}]
    assert conditions(page, 'name="specials"') == [{"breaking": ["chosen"]}] * 6
    assert conditions(page, 'name="removed"') == [{"variant": ["base"]}]
    assert conditions(page, 'value="base"') == []


def test_a_variant_posted_without_cards_removed_starts(client, alice):
    """The page's script disables the cards removed while a variant is chosen, so the form
    posts none: that is the base game's none."""
    client.force_login(alice)
    data = {**MATCH, "game": "nmbr9", "pace": "rounds", "variant": "two_of_three"}
    assert client.post(reverse("new_match"), data).status_code == 302
    assert Match.objects.get().options["variant"] == "two_of_three"
    assert Match.objects.get().options["removed"] == 0


def test_the_solo_form_shows_the_pace_and_the_word_on_bots_only_with_a_bot(client, alice):
    client.force_login(alice)
    bots = {"bot": ["easy", "medium", "strong"]}
    solo = client.get(reverse("new_solo")).text
    hidden = re.findall(r"<(?:div|p)[^>]* data-shown-when=[^>]*>", solo)
    # The pace, the word on bots, and whether others may watch the game.
    assert len(hidden) == 3 and all(tag.endswith(" hidden>") for tag in hidden)
    assert sum("data-private-choice" in tag for tag in hidden) == 1
    assert 'name="pace"' in solo  # posted as it is, rounds: a solo game has no pace
    shown = client.get(reverse("new_solo"), {"bot": "medium"}).text
    assert re.findall(r"<(?:div|p)[^>]* data-shown-when=[^>]*>", shown) == [
        tag.replace(" hidden>", ">") for tag in hidden
    ]
    assert conditions(shown, "data-bot-hint") == [bots]
    # nmbrs! has no solo game: a bot is always chosen, and its word always shown.
    nmbrs = client.get(reverse("new_solo"), {"game": "nmbrs"}).text
    assert "data-bot-hint hidden" not in nmbrs and 'value=""' not in nmbrs


def test_a_solo_game_posted_without_a_pace_is_played_in_rounds(client, alice):
    client.force_login(alice)
    response = client.post(reverse("new_solo"), {"game": "nmbr9", "removed": "0"})
    assert response.status_code == 302
    assert Match.objects.get().options.get("pace", "rounds") == "rounds"


def test_labels_have_no_colon(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_match")).text
    assert '<label for="id_rated">Rated</label>' in page
    assert "<legend>Pace</legend>" in page
