"""A whole nmbrs! game against a bot, played with the keyboard alone (Tab, Enter and Space)
and read only through the accessibility tree, in English on a page that follows the match
live and in German on one that polls: the piles, the series and the hand are named lists,
every card says its number, colour and value, the hand says which cards can be played, the
turn lists the plays as buttons and says what taking and passing do, and the bot's moves
are announced in a polite live region."""

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match
from games.services.match import lobby
from tests.browser.pages import answered, log_in, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

#: A deal in which the bot (medium) passes the discard on to the player once, the player
#: lays a series, and the game ends after the first deal (the target score is set low).
SEED, TARGET = 11, 51

WORDS = {
    "en": {
        "take": "Take the discard",
        "pass": "Pass",
        "round": "Pass it round the table",
        "draw": "Draw from the deck",
        "take help": "The card on the discard pile goes into your hand.",
        "offer pass help": "You leave the card: it is offered to the next player",
        "round help": "The others are offered the card in turn",
        "piles": "Piles",
        "discard pile": r"Discard (\d+|joker), \w+, (worth \d|\w+)",
        "deck": r"Deck \d+ cards",
        "series": "Series on the table",
        "a series": r"Series 1, step \d+",
        "hand": "Cards in your hand",
        "card": r"^\d+, (red|green|blue|orange), worth [123]",
        "playable": "can start a series",
        "ready": "Plays you can make now",
        "play": r"^Play the series .* for \d+ points?$",
        "discard": r"^Discard \S+ and end the turn$",
        "bot did": r"bot-medium (took|passed|drew|discarded|played)",
        "your move": "Your move.",
        "over": "Game over",
    },
    "de": {
        "take": "Offene Karte nehmen",
        "pass": "Weitergeben",
        "round": "Reihum weitergeben",
        "draw": "Vom verdeckten Stapel ziehen",
        "take help": "Die Karte auf dem Ablagestapel kommt auf deine Hand.",
        "offer pass help": "Du lässt die Karte liegen; sie wird dem nächsten Spieler angeboten",
        "round help": "Die anderen bekommen die Karte reihum angeboten",
        "piles": "Stapel",
        "discard pile": r"Ablagestapel (\d+|Joker), \w+, (Wert \d|\w+)",
        "deck": r"Verdeckter Stapel \d+ Karten",
        "series": "Reihen auf dem Tisch",
        "a series": r"Reihe 1, Abstand \d+",
        "hand": "Karten auf deiner Hand",
        "card": r"^\d+, (rot|grün|blau|orange), Wert [123]",
        "playable": "kann eine Reihe beginnen",
        "ready": "Was du jetzt ausspielen kannst",
        "play": r"^Ausspielen: die Reihe .*, für \d+ Punkte?$",
        "discard": r"^\S+ ablegen und den Zug beenden$",
        "bot did": r"bot-medium hat",
        "your move": "Du bist am Zug.",
        "over": "Spiel vorbei",
    },
}


def press(page, key: str = "Enter") -> None:
    """Press ``key`` on the control that has the focus and wait for the page's answer."""
    answered(page, lambda: page.keyboard.press(key))


def a_turn(page, words: dict[str, str], seen: dict[str, int]) -> None:
    """Make the decision the page asks for, with the keyboard: take the discard (or draw,
    or pass an offered discard), then the best play listed, or else discard a card."""
    take = page.get_by_role("button", name=words["take"], exact=True)
    offered_pass = page.get_by_role("button", name=words["pass"], exact=True)
    draw = page.get_by_role("button", name=words["draw"], exact=True)
    ready = page.get_by_role("list", name=words["ready"]).get_by_role("button")
    hand = page.get_by_role("list", name=words["hand"]).get_by_role("button")
    if offered_pass.count():
        expect(offered_pass).to_have_accessible_description(
            re.compile(re.escape(words["offer pass help"]))
        )
        tab_to(page, offered_pass)
        press(page)
        seen["offers"] += 1
    elif draw.count():
        tab_to(page, draw)
        press(page)
    elif take.count():
        expect(take).to_have_accessible_description(re.compile(re.escape(words["take help"])))
        round_table = page.get_by_role("button", name=words["round"], exact=True)
        expect(round_table).to_have_accessible_description(
            re.compile(re.escape(words["round help"]))
        )
        tab_to(page, take)
        press(page)
    elif ready.count():
        first = ready.first
        expect(first).to_have_accessible_name(re.compile(words["play"]))
        tab_to(page, first)
        press(page)
        seen["plays"] += 1
    else:
        cards = hand.all()
        card = next(
            (c for c in reversed(cards) if re.match(words["card"], accessible_name(c))),
            cards[-1],
        )
        tab_to(page, card)
        press(page, " ")
        chosen = page.get_by_role("list", name=words["hand"]).get_by_role("button", pressed=True)
        expect(chosen).to_have_count(1)
        discard = page.get_by_role("button", name=re.compile(words["discard"]))
        tab_to(page, discard)
        press(page)
        seen["discards"] += 1


def accessible_name(locator) -> str:
    """A control's name as the accessibility tree has it."""
    snapshot = locator.aria_snapshot()
    found = re.fullmatch(r"""- '?button "(.*)"'?""", snapshot.strip())
    assert found, snapshot
    return found.group(1)


def play_a_game(page, match, words: dict[str, str]) -> None:
    seen = {"offers": 0, "plays": 0, "discards": 0, "playable": 0, "announced": 0}
    over = page.get_by_role("heading", name=words["over"])
    take = page.get_by_role("button", name=words["take"], exact=True)
    offered_pass = page.get_by_role("button", name=words["pass"], exact=True)
    draw = page.get_by_role("button", name=words["draw"], exact=True)
    hand = page.get_by_role("list", name=words["hand"]).get_by_role("button")
    status = page.get_by_role("status")
    # The table as lists with names.
    expect(page.get_by_role("list", name=words["piles"])).to_match_aria_snapshot(
        f"""
        - list:
          - listitem: /{words["discard pile"]}/
          - listitem: /{words["deck"]}/
        """
    )
    for _turn in range(80):
        decision = take.or_(offered_pass).or_(draw).or_(hand.first).or_(over)
        expect(decision.first).to_be_visible(timeout=30_000)
        if over.count():
            break
        if hand.count():
            names = [accessible_name(card) for card in hand.all()]
            assert all(re.match(words["card"], name) or "oker" in name for name in names), names
            seen["playable"] += sum(words["playable"] in name for name in names)
        if take.or_(draw).count() and seen["discards"]:
            # The bot's moves since the player's discard, said in the live region.
            expect(status).to_contain_text(re.compile(words["bot did"]))
            expect(status).to_contain_text(words["your move"])
            seen["announced"] += 1
        a_turn(page, words, seen)
    expect(over).to_be_visible()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert seen["offers"] and seen["plays"] and seen["discards"] and seen["playable"], seen
    assert seen["announced"] >= seen["discards"] - 1, seen
    expect(page.get_by_role("list", name=words["series"])).to_match_aria_snapshot(
        f"""
        - list:
          - listitem:
            - list /{words["a series"]}/:
              - listitem: /./
        """
    )


def a_game_against_the_bot(alice, monkeypatch) -> Match:
    monkeypatch.setattr(lobby, "new_seed", lambda: SEED)
    return services.start_against_bot(alice, "medium", game="nmbrs", options={"target": TARGET})


def test_a_whole_game_against_a_bot_by_keyboard_in_english_followed_live(
    open_asgi_browser, celery_worker, alice, monkeypatch
):
    match = a_game_against_the_bot(alice, monkeypatch)
    session = open_asgi_browser()
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    play_a_game(page, match, WORDS["en"])


def test_a_whole_game_against_a_bot_by_keyboard_in_german(
    open_browser, celery_worker, alice, monkeypatch
):
    match = a_game_against_the_bot(alice, monkeypatch)
    session = open_browser(locale="de-DE")
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    play_a_game(page, match, WORDS["de"])
