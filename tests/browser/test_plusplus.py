"""NMBR 9 ++ in the browser: a solo game with all three modules, and two-player matches in
the variants "2 of 3" and "level to level", each played to the end."""

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match, Move
from games.nmbr9 import Turn
from tests.browser.pages import answered, ghost, log_in, screen_point, wait_ghost

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def over(page) -> bool:
    return page.get_by_text("Game over").count() > 0


def take_turn(page, *, reject: bool = False) -> bool:
    """Play the turn the page offers, if any: reject the card when asked and ``reject``,
    else build it where the page suggests (another shown card if that spot is refused).
    False when the page offers nothing to do."""
    if page.locator("[data-reject]").count() and reject:
        answered(page, lambda: page.locator("[data-reject]").click())
        return True
    if page.locator("[data-build]").count():
        # The tile is not shown, nor can it be tried, before the card is chosen to be built
        # (docs/rules.md §6.5); once chosen, it can no longer be rejected.
        expect(page.locator("[data-ghost]")).to_have_count(0)
        answered(page, lambda: page.locator("[data-build]").click())
        expect(page.locator("[data-ghost]")).to_have_count(1)
        expect(page.locator("[data-reject]")).to_have_count(0)
    if page.locator('[data-ghost="legal"]').count() == 0:
        for card in page.locator("[data-card]").all():
            answered(page, card.click)
            if page.locator('[data-ghost="legal"]').count():
                break
    if page.locator('[data-ghost="legal"]').count() == 0:
        return False
    answered(page, lambda: page.keyboard.press("Enter"))
    return True


def test_a_solo_game_with_all_three_modules(open_browser, alice):
    page = log_in(open_browser(), "alice")
    page.locator("[data-solo-options]").click()
    page.get_by_role("link", name="What the NMBR 9 ++ modules and variants are").click()
    expect(page.locator("h1")).to_have_text("How NMBR 9 is played")
    expect(page.locator(".help-figure svg")).to_have_count(8)
    page.go_back()
    page.check("#id_start_tiles")
    page.check("#id_fillers")
    page.select_option("#id_breaking", "chosen")
    page.check("input[name=specials][value=black]")
    page.check("input[name=specials][value=one]")
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator('svg[data-board="play"] [data-kind="start"]')).to_have_count(1)
    match = Match.objects.get()

    # Turn 1: the card's tile, then the filler F1 beside it, confirmed together.
    answered(page, lambda: page.locator("[data-add-step]").click())
    expect(page.locator("[data-steps]")).to_contain_text("place ")
    answered(page, lambda: page.get_by_role("link", name="Gap filler F1").click())
    # A click on the board moves the filler, which stays the piece being placed.
    x, y, _ = ghost(page)
    answered(page, lambda: page.mouse.click(*screen_point(page, x + 2, y)))
    wait_ghost(page, x + 2, y, 0)
    expect(page.locator("#turn .current")).to_contain_text("Gap filler")
    if page.locator('[data-ghost="legal"]').count() == 0:
        answered(page, lambda: page.mouse.click(*screen_point(page, x, y)))
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
    answered(page, lambda: page.keyboard.press("Enter"))
    first = Turn.parse(Move.objects.get(match=match).text)
    assert [type(s).__name__ for s in first.steps] == ["Place", "Fill"]
    expect(page.locator('svg[data-board="play"] [data-kind="filler"]')).to_have_count(1)

    # Turn 2: the special tile "black": the tile is mirrored.
    answered(page, lambda: page.locator('[data-special="black"]').click())
    expect(page.locator("#turn .current")).to_contain_text("mirrored")
    answered(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator('svg[data-board="play"] [data-kind="mirrored"]')).to_have_count(1)
    expect(page.locator('[data-special="black"][aria-disabled="true"]')).to_have_count(1)

    for _ in range(30):
        if over(page):
            break
        assert take_turn(page)
    expect(page.get_by_text("Game over")).to_be_visible()
    match.refresh_from_db()
    seat = match.seats.get()
    assert seat.score == services.load(match).state.score(0)
    expect(page.locator("[data-score]")).to_have_text(str(seat.score))
    game_url = page.url
    page.locator("[data-replay-link]").click()
    # the last turn step by step in words, each step's notation on hover
    last = Move.objects.filter(match=match).latest("ply").text.split("; ")
    steps = page.locator('[data-replay-turns="alice"] [data-replay-step]')
    expect(steps).to_have_count(len(last))
    for step, notation in zip(steps.all(), last, strict=True):
        expect(step).to_have_attribute("title", notation)
        expect(step).to_contain_text("alice ")
    page.locator(".replay-nav a", has_text="Round 19").click()
    page.locator(".replay-nav a", has_text="Round 18").click()
    expect(page.locator("[data-replay-round]")).to_have_text("After round 18 of 20")

    # Play again: a new game with the same modules.
    page.goto(game_url)
    page.locator("[data-play-again]").click()
    expect(page.locator('svg[data-board="play"] [data-kind="start"]')).to_have_count(1)
    again = Match.objects.latest("id")
    assert again.pk != match.pk and again.options == match.options
    expect(page.locator('[data-special="black"]')).to_have_count(1)


def create_match(page, invite: str, variant: str, pace: str) -> Match:
    page.get_by_role("link", name="New match").click()
    page.select_option("#id_players", "2")
    page.check(f"input[name=pace][value={pace}]")
    page.check(f"input[name=variant][value={variant}]")
    page.fill("#id_invite", invite)
    page.uncheck("#id_open")
    page.get_by_role("button", name="Create the match").click()
    expect(page.get_by_text("Waiting for players")).to_be_visible()
    return Match.objects.get()


def accept(page, match: Match) -> None:
    """Accept the invitation where the home page lists it."""
    page.goto(page.url.split("/game/")[0] + "/")
    page.locator(f'[data-invitation="{match.pk}"] [data-accept]').click()
    page.wait_for_url(f"**{match.get_absolute_url()}")


@pytest.mark.parametrize(
    ("variant", "pace"),
    [("two_of_three", "free"), ("level_to_level", "rounds")],
    ids=["2-of-3", "level-to-level"],
)
def test_two_players_play_a_variant_to_the_end(open_browser, alice, bob, variant, pace):
    alice_page = log_in(open_browser(), "alice")
    bob_page = log_in(open_browser(), "bob")
    match = create_match(alice_page, "bob", variant, pace)
    accept(bob_page, match)
    alice_page.reload()

    turns = {"alice": 0, "bob": 0}
    for step in range(200):
        if over(alice_page) and over(bob_page):
            break
        moved = False
        for name, page in (("alice", alice_page), ("bob", bob_page)):
            page.reload()
            # Alice rejects the first card of a round when she may; Bob never does.
            if take_turn(page, reject=name == "alice" and turns[name] % 3 == 0):
                turns[name] += 1
                moved = True
        assert moved or over(alice_page), f"nobody could move at step {step}"
    for page in (alice_page, bob_page):
        page.reload()
        expect(page.get_by_text("Game over")).to_be_visible()
        expect(page.locator("[data-rank]")).to_have_count(2)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    state = services.load(match).state
    for seat in match.seats.all():
        texts = list(Move.objects.filter(seat=seat).values_list("text", flat=True))
        placed = sum(1 for t in texts if t.startswith("place"))
        assert seat.progress == placed == len(state.board(seat.index).tiles)
        assert seat.score == state.score(seat.index)
        if variant == "two_of_three":
            assert seat.progress == 20  # 30 cards, one of every three rejected
            if seat.player.username == "alice":
                assert "reject" in texts
        else:
            assert max(level for _, level in state.board(seat.index).tiles) <= 4
    if variant == "two_of_three":
        # The replay counts the game's ten rounds of three cards, as the game page does.
        alice_page.locator("[data-replay-link]").click()
        shown = alice_page.locator("[data-replay-round]")
        expect(shown).to_have_text("After round 10 of 10")
        alice_page.keyboard.press("Home")
        expect(shown).to_have_text("After round 0 of 10")
        alice_page.keyboard.press("ArrowRight")
        expect(shown).to_have_text("After round 1 of 10")
        # Alice rejected the first card and built the others; Bob built the first two, and
        # the third was rejected for him by itself.
        alice_turns = alice_page.locator('[data-replay-turns="alice"] [data-replay-step]')
        expect(alice_turns).to_have_count(3)
        expect(alice_turns.first).to_have_attribute("title", "reject")
        expect(alice_turns.first).to_have_text(re.compile(r"^alice rejected the \d\.$"))
        bob_turns = alice_page.locator('[data-replay-turns="bob"] [data-replay-step]')
        expect(bob_turns).to_have_count(3)
        expect(bob_turns.nth(1)).to_have_attribute("title", re.compile(r"^place "))
        expect(bob_turns.last).not_to_have_attribute("title", re.compile(".*"))
        expect(bob_turns.last).to_have_text(re.compile(r"^bob had to reject the \d "))


def test_back_after_build_and_an_undo_to_the_turns_start_show_the_turn_as_it_is(
    open_browser, alice
):
    page = log_in(open_browser(), "alice")
    page.locator("[data-solo-options]").click()
    page.check("input[name=variant][value=two_of_three]")
    page.check("#id_fillers")
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("[data-choose]")).to_have_count(1)
    answered(page, lambda: page.locator("[data-build]").click())
    expect(page.locator("[data-ghost]")).to_have_count(1)
    # Away and back: the browser shows the choice made, not the page from before it.
    page.goto(page.url.split("/game/")[0] + "/leaderboard/")
    page.go_back()
    expect(page.locator("[data-ghost]")).to_have_count(1)
    expect(page.locator("[data-choose], [data-reject]")).to_have_count(0)
    # A step added, then undone: the turn is back at its start, in one play area.
    answered(page, lambda: page.locator("[data-add-step]").click())
    expect(page.locator("[data-steps]")).to_contain_text("place ")
    expect(page).to_have_url(re.compile(r"\?steps=place"))  # the address keeps the turn
    answered(page, lambda: page.locator("[data-undo]").click())
    expect(page.locator("[data-steps]")).to_have_count(0)
    expect(page.locator("#play")).to_have_count(1)
    expect(page.locator("#turn")).to_have_count(1)
    expect(page.locator("[data-ghost]")).to_have_count(1)
