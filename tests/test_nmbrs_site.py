"""nmbrs! on the site: creating a match, the table, turns made through the pages' own
links and forms, previews, secrecy of hands, the end of a match and its replay."""

import re
import time
from html import unescape
from itertools import combinations

import pytest
from django.urls import reverse

from games import services
from games.models import Match, Move, RatingChange
from games.nmbrs.policy import choose
from games.nmbrs.preview import needs, plays
from games.nmbrs.view import view
from tests.factories import nmbrs_match, play_to_the_end, post, state

HTMX = {"HTTP_HX_REQUEST": "true"}


def move_forms(html: str) -> dict[str, str]:
    """The move each form on the page posts, by its text."""
    return {unescape(m): m for m in re.findall(r'name="move" value="([^"]*)"', html)}


def test_the_new_match_form_offers_nmbrs_with_its_options(client, alice, bob):
    client.force_login(alice)
    page = client.get(reverse("new_match"), {"game": "nmbrs"}).text
    assert 'data-game="nmbrs"' in page and "Advanced series" in page and "Simplified" in page
    assert "target" not in page  # a low target is for tests only
    response = client.post(
        reverse("new_match"),
        {
            "game": "nmbrs",
            "players": "8",
            "time_control": "1d",
            "rated": "on",
            "advanced": "on",
            "invite": "bob",
            "open": "on",
        },
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert match.game == "nmbrs" and match.players == 8
    assert match.options == {"advanced": True, "simplified": False, "target": 100}
    page = client.get(match.get_absolute_url()).text
    assert "nmbrs!" in page and "advanced series" in page


def test_the_table_shows_only_what_a_player_may_know(client, alice, bob, carol):
    match = nmbrs_match(alice, bob, carol)
    game = state(match)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert 'data-choice="draw"' in page
    assert f'data-card="{game.top}"' in page
    for card in game.hands[0]:
        assert f'data-card="{card}"' in page
    shown = set(re.findall(r'data-card="([^"]+)"', page))
    assert shown <= set(game.hands[0]) | {game.top}
    assert f"{len(game.deck)} cards" in page
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    assert "Waiting for alice to move." in page
    shown = set(re.findall(r'data-card="([^"]+)"', page))
    assert shown <= set(game.hands[1]) | {game.top}


def test_a_turn_through_the_pages_with_an_offer_taken_out_of_turn(client, alice, bob, carol):
    match = nmbrs_match(alice, bob, carol)
    top = state(match).top
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert set(move_forms(page)) == {"take", "pass"}
    assert post(client, match, "pass").status_code == 302
    client.force_login(bob)
    home = client.get(reverse("home")).text
    your_move = home.split('class="card your-move"')[1].split("</section>")[0]
    assert f'data-match="{match.pk}"' in your_move and "data-countdown" in your_move
    page = client.get(match.get_absolute_url()).text
    assert 'data-choice="offer"' in page and "it is offered to you" in page
    hand = len(state(match).hands[1])
    assert post(client, match, "take").status_code == 302
    after = state(match)
    assert top in after.hands[1] and len(after.hands[1]) == hand + 2
    # alice decides again about the new top card, then plays on.
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert 'data-choice="draw"' in page
    # The pile held one card: none is left to decide about, and bob took the one there was.
    assert set(move_forms(page)) == {"draw"}
    assert "The discard pile is empty: draw a card from the deck." in page
    assert "Nobody took the discard" not in page
    assert post(client, match, "draw").status_code == 302
    page = client.get(match.get_absolute_url()).text
    assert 'data-choice="play"' in page and "Select cards in your hand" in page


def test_a_discard_nobody_takes_sends_the_player_to_the_deck(client, alice, bob, carol):
    match = nmbrs_match(alice, bob, carol)
    for player in (alice, bob, carol):
        client.force_login(player)
        assert post(client, match, "pass").status_code == 302
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert set(move_forms(page)) == {"draw"}
    assert "Nobody took the discard: draw a card from the deck." in page
    german = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Niemand hat die offene Karte genommen" in german


def test_selected_cards_preview_their_plays_and_a_refusal(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    assert post(client, match, "take").status_code == 302
    game = state(match)
    # The policy's best play, found through the selection links of the page.
    move = choose(game, 0)
    page = client.get(match.get_absolute_url()).text
    assert move.is_play and any(placed.joker for placed in move.cards)  # seed 11
    url = match.get_absolute_url()
    for placed in move.cards:
        link = re.search(rf'href="([^"]+)"[^>]*data-pick="{placed.card}"', page)
        page = client.get(unescape(link.group(1)), **HTMX).text
        assert 'id="turn"' in page
    assert str(move) in move_forms(page)
    assert re.search(r'class="points">\+\d+<', page)
    assert post(client, match, str(move)).status_code == 302
    assert state(match).laid[0]
    page = client.get(url).text
    # Three cards that are no series: the reason, and nothing played.
    hand = sorted(state(match).hands[0], key=lambda c: int(c) if c.isdigit() else 999)
    numbers = [c for c in hand if c.isdigit()]
    wrong = next(
        (a, b, c)
        for a in numbers
        for b in numbers
        for c in numbers
        if int(a) < int(b) < int(c) and int(b) - int(a) != int(c) - int(b)
    )
    query = "&".join(f"pick={c}" for c in wrong)
    moves = Move.objects.count()
    page = client.get(f"{match.get_absolute_url()}?{query}", **HTMX).text
    assert "data-verdict" in page and not any(t.startswith("lay") for t in move_forms(page))
    written = client.get(match.get_absolute_url(), {"attempt": f"lay {','.join(wrong)}"}).text
    assert 'class="verdict bad"' in written and "series" in written
    assert Move.objects.count() == moves
    # One card selected: it can be discarded, which ends the turn.
    page = client.get(f"{match.get_absolute_url()}?pick={numbers[0]}", **HTMX).text
    assert f"discard {numbers[0]}" in move_forms(page)
    assert post(client, match, f"discard {numbers[0]}").status_code == 302
    assert state(match).current == 1


def test_cards_that_can_still_become_a_play_get_a_hint_not_an_error(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    assert post(client, match, "take").status_code == 302
    game = state(match)
    seen = view(game, 0)
    pairs = [pair for pair in combinations(game.hands[0], 2) if not plays(seen, pair)]
    growing = next(pair for pair in pairs if needs(seen, pair))  # seed 11: not laid yet
    stuck = next(pair for pair in pairs if not needs(seen, pair))

    def shown(cards, **headers):
        query = "&".join(f"pick={card}" for card in cards)
        return client.get(f"{match.get_absolute_url()}?{query}", **HTMX, **headers).text

    page = shown(growing)
    assert re.search(r'<p class="hint" data-hint>One more card for a series: [^<]+\.</p>', page)
    assert "data-verdict" not in page and 'role="alert"' not in page
    assert 'class="error' not in page and "You must lay" not in page
    german = shown(growing, HTTP_ACCEPT_LANGUAGE="de")
    assert re.search(r"data-hint>Noch eine Karte für eine Reihe: [^<]+\.</p>", german)
    page = shown(stuck)
    assert 'class="verdict bad" data-verdict' in page and "data-hint" not in page

    # Once no card of the hand makes a play with it, one card selected is to be discarded.
    assert post(client, match, str(choose(state(match), 0))).status_code == 302
    game = state(match)
    seen = view(game, 0)
    single = next(card for card in game.hands[0] if not plays(seen, [card]) + needs(seen, [card]))
    page = shown([single])
    assert f"{single} makes no play with the cards of your hand: you can discard it." in page
    assert "data-verdict" not in page and f"discard {single}" in move_forms(page)
    german = shown([single], HTTP_ACCEPT_LANGUAGE="de")
    assert "ergibt mit den Karten deiner Hand keinen Spielzug" in german


def test_a_refused_move_says_why_and_changes_nothing(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    response = post(client, match, "discard 42")
    assert response.status_code == 400 and "take the discard" in response.text
    assert client.post(reverse("play", args=[match.pk]), {"move": "", "ply": 0}).status_code == 400
    garbage = client.get(match.get_absolute_url(), {"pick": "JX"})
    assert garbage.status_code == 400 and "not a card" in garbage.text
    client.force_login(bob)
    assert post(client, match, "take").status_code == 400
    assert Move.objects.count() == 0


def test_the_hand_sorts_by_colour(client, alice, bob):
    match = nmbrs_match(alice, bob)
    client.force_login(alice)
    by_number = re.findall(r'data-card="([^"]+)"', client.get(match.get_absolute_url()).text)
    page = client.get(match.get_absolute_url(), {"sort": "colour"}).text
    by_colour = re.findall(r'data-card="([^"]+)"', page)
    assert sorted(by_number) == sorted(by_colour) and "Sort by number" in page
    colours = re.findall(r'class="nmbrs-card colour-(\w+)', page.split('class="hand"')[1])
    assert colours == sorted(colours, key=["red", "green", "blue", "orange"].index)


@pytest.mark.django_db(transaction=True)
def test_a_short_match_ends_with_ranks_ratings_final_hands_and_a_replay(
    client, alice, bob, carol, celery_worker
):
    match = nmbrs_match(alice, bob, carol, target=60)
    play_to_the_end(client, match, [alice, bob, carol])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    page = client.get(match.get_absolute_url()).text
    assert "Hands at the end" in page and "data-rank" in page
    replay = client.get(reverse("replay", args=[match.pk]), {"ply": 3})
    assert replay.status_code == 200 and "After move 3 of" in replay.text
    assert "data-replay-move" in replay.text
    # every hand is shown after the match: each as it was after move 3
    after = services.load(match).rules.setup(3, match.seed, services.load(match).state.options)
    for move in Move.objects.filter(match=match).order_by("pk")[:3]:
        after = services.load(match).rules.apply(
            after, move.seat.index, services.load(match).rules.parse_move(move.text)
        )
    for player in range(3):
        shown = re.search(rf'data-replay-hand="{player}"(.*?)</ul>', replay.text, re.S).group(1)
        assert sorted(re.findall(r'data-card="([^"]+)"', shown)) == sorted(after.hands[player])
    for _ in range(50):
        if RatingChange.objects.filter(match=match).count() == 3:
            break
        time.sleep(0.2)
    assert RatingChange.objects.filter(match=match).count() == 3
    profile = client.get(reverse("profile", args=["alice"])).text
    assert "nmbrs!" in profile


def test_the_match_log_tells_every_move_as_the_table_saw_it(client, alice, bob, carol):
    match = nmbrs_match(alice, bob, carol)
    top = state(match).top
    client.force_login(alice)
    assert post(client, match, "pass").status_code == 302
    client.force_login(bob)
    assert post(client, match, "take").status_code == 302
    drawn = set(state(match).hands[1]) - {top}
    client.force_login(carol)
    page = client.get(match.get_absolute_url()).text
    log = re.search(r'<ol class="log".*?</ol>', page, re.S).group(0)
    assert f"alice passed on the {top}." in log
    assert f"bob took the {top} offered to them and drew a card." in log
    assert log.index("bob took") < log.index("alice passed")  # newest first
    assert not any(re.search(rf"\b{card}\b", log) for card in drawn)
    game = state(match)
    # after an offer taken alice decides again; the pile had one card, so she draws
    assert game.to_move == 0 and game.top is None
    client.force_login(alice)
    assert post(client, match, "draw").status_code == 302
    page = client.get(match.get_absolute_url()).text
    log = re.search(r'<ol class="log".*?</ol>', page, re.S).group(0)
    assert "alice drew a card." in log.split("</li>")[0]


def test_the_rules_page_explains_the_game(client):
    page = client.get(reverse("help", args=["nmbrs"])).text
    for words in ("A turn", "Lay", "Extend", "Insert", "Cross", "Join", "Swap", "Advanced"):
        assert words in page
    assert page.count('class="nmbrs-card') == 3


def test_always_pass_answers_offers_at_once(client, alice, bob, carol):
    match = nmbrs_match(alice, bob, carol)
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    box = re.compile(r'<input type="checkbox" name="always_pass"( checked)? data-pref')
    assert box.search(page).group(1) is None
    response = client.post(reverse("prefs", args=[match.pk]), {"always_pass": "on"})
    assert response.status_code == 302
    assert (
        "checked" in client.get(match.get_absolute_url()).text.split('data-pref="always')[0][-60:]
    )
    client.force_login(alice)
    assert post(client, match, "pass").status_code == 302
    moves = Move.objects.filter(match=match).order_by("ply")
    # bob's answer, given for him as he chose: not a move made as his time ran out
    assert list(moves.values_list("text", "auto", "timed_out")) == [
        ("pass", False, False),
        ("pass", True, False),
    ]
    assert state(match).offer_to == 2
    client.force_login(carol)
    assert 'data-choice="offer"' in client.get(match.get_absolute_url()).text
    # Switched off again: the next offer waits for bob.
    client.force_login(bob)
    client.post(reverse("prefs", args=[match.pk]), {})
    assert services.load(match).seats[1].prefs == {"always_pass": False}


@pytest.mark.parametrize(
    ("text", "english", "german"),
    [
        ("lay 12,JR=14,16", "the series 12, joker as 14, 16", "die Reihe 12, Joker als 14, 16"),
        ("extend 1: 35", "35 on series 1", "35 an Reihe 1"),
        ("insert 2: 20", "20 into series 2", "20 in Reihe 2"),
        ("cross 3@14: 7,21", "7, 21 across series 3 at 14", "7, 21 quer durch Reihe 3 bei 14"),
        ("join 3+5: 22", "22 joining series 3 and 5", "22, die Reihe 3 und 5 verbindet"),
        ("swap 4: 42", "42 for the joker in series 4", "42 für den Joker in Reihe 4"),
        ("discard 9", "discard 9", "discard 9"),
    ],
)
def test_a_play_is_written_in_words(text, english, german):
    from django.utils import translation

    from games.web.nmbrs.words import play_words

    assert play_words(text) == english
    with translation.override("de"):
        assert play_words(text) == german
