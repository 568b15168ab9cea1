"""Every control of a turn leads somewhere a player can go on from: walked through for every
option set of NMBR 9 and NMBR 9 ++, at the start and later in a game."""

import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from games import services
from games.models import Match, Move
from games.nmbr9.rules import RULES
from games.services.match import commitments
from tests.factories import Forms, start_solo, state

pytestmark = pytest.mark.django_db

#: The controls that change what is composed (the arrows and rotations only move the piece).
COMPOSING = (
    "data-add-step",
    "data-piece",
    "data-special",
    "data-card",
    "data-movable",
    "data-undo",
)
#: What ends or takes back a turn.
WAYS_ON = ('data-key="confirm"', "data-confirm-turn", "data-build", "data-reject", "data-reserve")

OPTION_SETS = {
    "base": {},
    "fillers": {"fillers": "on"},
    "start-tiles": {"start_tiles": "on"},
    "every-special": {
        "breaking": "chosen",
        "specials": ["move", "black", "one", "bridge", "loose", "reserve"],
    },
    "two-of-three": {"variant": "two_of_three", "fillers": "on"},
    "level-to-level": {"variant": "level_to_level", "breaking": "chosen", "specials": ["move"]},
    "everything": {
        "start_tiles": "on",
        "fillers": "on",
        "breaking": "chosen",
        "specials": ["move", "one", "reserve"],
        "variant": "two_of_three",
    },
}


def controls(page: str) -> list[str]:
    """The addresses of the links of the turn that change what is composed."""
    turn = page[page.index('id="turn"') :]
    found = re.findall(r'<a [^>]*href="([^"]+)"[^>]*(data-[\w-]+)', turn)
    return [href.replace("&amp;", "&") for href, marker in found if marker in COMPOSING]


def ways_on(page: str) -> list[str]:
    """What on the page ends the turn or takes a step back (an enabled button, Undo, or
    another piece to place)."""
    turn = page[page.index('id="turn"') :]
    found = [m for m in WAYS_ON if re.search(rf"<button [^>]*{m}(?![^>]*disabled)", turn)]
    return (
        found
        + (["undo"] if "data-undo" in turn else [])
        + (["another piece"] if re.search(r'class="button piece"[^>]*data-piece', turn) else [])
    )


def walk(client, start: str, limit: int = 40) -> int:
    """Follow every composing control from ``start``, breadth first, up to ``limit`` pages:
    each page offers a way to end the turn or take a step back, and a turn of steps always
    offers Undo. Returns the pages seen."""
    seen, todo = set(), [start]
    while todo and len(seen) < limit:
        url = todo.pop(0)
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code == 200, (url, response.text[:500])
        page = response.text
        assert ways_on(page), f"a dead end at {url}"
        if "steps=" in url and "data-steps" in page:
            assert "undo" in ways_on(page), f"no way back at {url}"
        todo.extend(u for u in controls(page) if u not in seen)
    return len(seen)


def choose_to_build(client, match) -> None:
    """In "2 of 3", choose Build where the page asks first."""
    page = client.get(match.get_absolute_url()).text
    if "data-choose" in page:
        form = Forms(page).find("data-build")
        assert client.post(form["action"], form["fields"]).status_code == 302


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_every_control_of_a_turn_leads_on_or_back(client, alice, options):
    match = start_solo(client, alice, **options)
    walked = 0
    for _turn in range(3):  # at the start, then after a few turns (reserved tiles, moves)
        choose_to_build(client, match)
        walked += walk(client, match.get_absolute_url())
        for _ in range(4):
            record = services.load(match)
            if record.state.is_over():
                break
            move = commitments.auto_move(record, record.seats[0])
            made = Move.objects.filter(match=match).count()
            services.play(match.pk, alice, str(move), made, commits=True)
    assert walked >= 3


def test_a_plain_game_offers_no_step_that_cannot_be_followed_by_another(client, alice):
    match = start_solo(client, alice)
    page = client.get(match.get_absolute_url()).text
    assert 'data-key="confirm"' in page and "data-add-step" not in page
    fillers = start_solo(client, alice, fillers="on")
    assert "data-add-step" in client.get(fillers.get_absolute_url()).text


def test_an_address_with_a_step_that_ends_the_turn_shows_undo_and_confirm(client, alice):
    """A plain game's address with its tile already composed (a link kept from before, or
    typed) shows the turn so far with Undo and Confirm, not a board without controls."""
    match = start_solo(client, alice)
    spot = RULES.auto_move(state(match), 0)
    url = f"{match.get_absolute_url()}?{urlencode({'steps': str(spot)})}"
    page = client.get(url).text
    assert "Your turn so far" in page
    assert set(ways_on(page)) == {"data-confirm-turn", "undo"}
    form = Forms(page).find("data-confirm-turn")
    assert client.post(form["action"], form["fields"]).status_code == 302
    assert Move.objects.get(match=match).text == str(spot)
    assert Match.objects.get(pk=match.pk).seats.get().progress == 1
    assert reverse("game", args=[match.pk]) == match.get_absolute_url()


def test_moving_a_tile_is_offered_only_once_a_tile_is_free_to_move(client, alice):
    match = start_solo(client, alice, breaking="chosen", specials=["move"])
    assert 'data-piece="Move a tile"' not in client.get(match.get_absolute_url()).text
    services.play(match.pk, alice, str(RULES.auto_move(state(match), 0)), 0)
    assert 'data-piece="Move a tile"' in client.get(match.get_absolute_url()).text
