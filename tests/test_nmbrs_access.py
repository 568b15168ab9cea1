"""nmbrs! without seeing the table: every card in words, the hand's cards that can be played
now (worked out from the reader's own view), the best plays as buttons, what taking and
passing the discard do, the others' moves for the live region, and the choices that are
not the table's below it."""

import re
from html import unescape

import pytest
from django.utils import translation

from games.nmbrs import Move
from games.nmbrs.cards import CARDS, JOKERS
from games.nmbrs.plays import legal_plays
from games.nmbrs.view import card_data
from games.web.nmbrs.compose import READY
from games.web.nmbrs.words import card_words
from tests.factories import make_match, nmbrs_match, post, state

pytestmark = pytest.mark.django_db


def hand_names(page: str) -> dict[str, str]:
    """What each card of the hand says to a screen reader, by the card."""
    hand = page.split('class="hand-cards"')[1].split("</ul>")[0]
    found = re.findall(
        r'data-card="([^"]+)"><span class="visually-hidden">([^<]*)</span>', unescape(hand)
    )
    return dict(found)


def news(page: str) -> list[str]:
    """The lines the page has for the live region."""
    part = page.split("data-news")[1].split("</div>")[0]
    return [unescape(line) for line in re.findall(r'data-line="\d+">([^<]*)</p>', part)]


def test_every_card_says_its_number_colour_and_value(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    game = state(match)
    names = hand_names(client.get(match.get_absolute_url()).text)
    assert set(names) == set(game.hands[0])
    for card, name in names.items():
        info = CARDS[card]
        if card in JOKERS:
            assert name == f"joker, {info.colour}"
        else:
            assert name == f"{info.number}, {info.colour}, worth {info.value}"
    german = hand_names(client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text)
    some = next(card for card in german if card not in JOKERS)
    colour = {"red": "rot", "green": "grün", "blue": "blau", "orange": "orange"}
    info = CARDS[some]
    assert german[some] == f"{info.number}, {colour[info.colour]}, Wert {info.value}"
    with translation.override("en"):
        assert card_words(card_data("JR", 14)) == "joker standing for 14, red"


def test_the_hand_marks_the_cards_that_can_be_played_now(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    before = hand_names(client.get(match.get_absolute_url()).text)
    assert not any("can " in name for name in before.values())  # not before the draw
    # alice lets her joker go, and then takes the card bob discards.
    assert post(client, match, "take").status_code == 302
    assert post(client, match, "discard JR").status_code == 302
    client.force_login(bob)
    assert post(client, match, "take").status_code == 302
    assert post(client, match, "discard 10").status_code == 302
    client.force_login(alice)
    assert post(client, match, "take").status_code == 302
    game = state(match)
    found = legal_plays(game, 0)
    starting = {card for plan in found if plan.move.kind == "lay" for card in plan.out}
    assert starting and set(game.hands[0]) - starting  # some cards can, some cannot
    page = client.get(match.get_absolute_url()).text
    names = hand_names(page)
    for card, name in names.items():
        assert ("can start a series" in name) == (card in starting), (card, name)
    assert names.keys() == set(game.hands[0])
    assert page.count('class="playable-mark"') == len(starting) + 1  # and the legend's
    # The best plays are buttons, each a legal play of the hand.
    ready = re.findall(r'<li data-ready="([^"]+)">', page)
    assert len(ready) == min(READY, len(found))
    assert set(ready) <= {str(plan.move) for plan in found}
    best = max(plan.points for plan in found)
    assert f"for {best} points</button>" in page.split(f'data-ready="{ready[0]}"')[1]


def test_the_plays_offered_show_no_card_the_reader_may_not_know(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    assert post(client, match, "take").status_code == 302
    game = state(match)
    page = client.get(match.get_absolute_url()).text
    assert "data-ready" in page
    shown = set(re.findall(r'data-card="([^"]+)"', page))
    for text in re.findall(r'data-ready="([^"]+)"', page):
        shown.update(placed.card for placed in Move.parse(unescape(text)).cards)
    known = set(game.hands[0]) | {card for cards in game.table.values() for card, _ in cards}
    assert shown <= known | ({game.top} if game.top else set())
    assert not shown & (set(game.hands[1]) | set(game.deck))


def test_taking_and_passing_say_what_they_do(client, alice, bob, carol):
    match = nmbrs_match(alice, bob, carol)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    for kind, help_id in (("take", "take-help"), ("pass", "pass-help")):
        assert re.search(f'data-move="{kind}"[^>]* aria-describedby="{help_id}"', page)
        assert page.count(f'id="{help_id}"') == 1
    assert "The others are offered the card in turn" in page
    assert post(client, match, "pass").status_code == 302
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    assert 'data-choice="offer"' in page
    assert "you draw one more from the deck" in page
    assert "it is offered to the next player" in page
    german = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "du ziehst eine weitere vom verdeckten Stapel" in german


def test_the_news_tells_the_others_moves_not_the_readers(client, alice, bob):
    match = nmbrs_match(alice, bob)
    top = state(match).top
    client.force_login(alice)
    assert news(client.get(match.get_absolute_url()).text) == []
    assert post(client, match, "take").status_code == 302
    card = state(match).hands[0][0]
    assert post(client, match, f"discard {card}").status_code == 302
    page = client.get(match.get_absolute_url()).text
    assert news(page) == [] and 'data-heard="2"' in page and "data-your-move" not in page
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    assert news(page) == [f"alice took the {top}.", f"alice discarded the {card}."]
    assert "data-your-move" in page
    assert post(client, match, "take").status_code == 302
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert news(page) == [f"bob took the {card}."] and 'data-heard="3"' in page
    german = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert news(german) == [f"bob hat die {card} genommen."]


def test_the_choices_that_are_not_the_tables_come_below_it(client, alice, bob):
    match = nmbrs_match(alice, bob)
    other = nmbrs_match(alice, bob)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    table = page.index('class="nmbrs-table"')
    hand = page.index('class="hand-cards"')
    assert table < hand < page.index('data-pref="always_pass"')
    assert hand < page.index("data-next-game")
    # The same for NMBR 9: the next game waits below the game's own controls.
    first = make_match(alice, bob, seed=3)
    make_match(alice, bob, seed=4)
    page = client.get(first.get_absolute_url()).text
    assert page.index('id="turn"') < page.index("data-next-game")
    assert other.pk != match.pk


def test_a_joker_to_discard_is_named_in_words(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    assert post(client, match, "take").status_code == 302
    assert "JR" in state(match).hands[0]
    page = client.get(match.get_absolute_url(), {"pick": "JR"}).text
    assert ">Discard joker and end the turn</button>" in page
    assert 'name="move" value="discard JR"' in page
