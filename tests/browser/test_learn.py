"""A visitor plays both tutorials through in headless Chromium, in English and German, on a
desktop and on a phone: from each game's rules page, with the page's own keys, clicks and
buttons; wrong moves are answered with the rule or the step's sentence and change nothing;
Back and reload keep the step; nothing is stored until the visitor chooses to play."""

import re

import pytest
from django.contrib.auth.models import User
from django.utils import translation
from playwright.sync_api import expect

from games.models import Match
from games.nmbr9 import Board, Placement
from games.web.nmbr9 import tutorial as nmbr9_tutorial
from games.web.nmbrs import tutorial as nmbrs_tutorial
from tests.browser.pages import PHONE, answered, screen_point, wait_ghost

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en": {
        "learn": "Learn to play NMBR 9",
        "not adjacent": "Not adjacent: it must share an edge with a tile on the same level.",
        "gap": "Gap: the tile would bridge a hole.",
        "lay first": "You must lay a series of 3 or more cards before adding cards to the table",
        "solo": "Play a solo game",
    },
    "de": {
        "learn": "NMBR 9 spielen lernen",
        "not adjacent": (
            "Nicht angrenzend: es muss eine Kante mit einem Plättchen derselben Ebene teilen."
        ),
        "gap": "Lücke: das Plättchen würde ein Loch überbrücken.",
        "lay first": "Du musst erst eine Reihe aus 3 oder mehr Karten auslegen",
        "solo": "Ein Solospiel spielen",
    },
}


def said(text, language: str) -> str:
    with translation.override(language):
        return str(text)


def lesson_answered(page, action) -> None:
    """Do ``action`` and wait until its answer replaced the turn or the lesson and settled."""
    answered(page, action, areas="#turn, #learn", path="/learn/")


def shows_refusal(session, error: str) -> None:
    """A wrong move was answered (with a 400, which the browser reports) and says ``error``."""
    expect(session.page.locator("#turn [role=alert]")).to_have_text(error)
    bad = [e for e in session.errors if "status of 400" in e]
    assert len(bad) == 1, session.errors
    session.errors.remove(bad[0])


def fits_the_screen(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def whole_board_in_sight(page) -> None:
    """Every tile of the own board (and the one being placed) lies on the screen, inside
    the board's frame and above the controls that stay at the bottom of a narrow screen,
    and the step leaves room below it for those controls."""
    page.wait_for_timeout(300)  # the page's own scrolling after the step came
    seen = page.evaluate(
        """() => {
          const wrap = document.querySelector('#learn .board-wrap.own');
          const frame = wrap.getBoundingClientRect();
          const bar = document.querySelector('#turn .controls').getBoundingClientRect();
          const pieces = [...wrap.querySelectorAll('.tile, .ghost')].map(
            (el) => el.getBoundingClientRect());
          const room = getComputedStyle(document.getElementById('learn')).paddingBottom;
          return {
            pieces: pieces.map((b) => [b.left, b.top, b.right, b.bottom]),
            frame: [frame.left, frame.top, frame.right, frame.bottom],
            bar: bar.top, bar_height: bar.height, room: parseFloat(room),
            width: window.innerWidth,
          };
        }"""
    )
    assert len(seen["pieces"]) == 3, seen
    # Room below the step for the controls, so that the board can scroll above them.
    assert seen["room"] >= seen["bar_height"], seen
    left, top, right, bottom = seen["frame"]
    for x0, y0, x1, y1 in seen["pieces"]:
        assert x0 >= max(left, 0) - 1 and x1 <= min(right, seen["width"]) + 1, seen
        assert y0 >= max(top, 0) - 1 and y1 <= min(bottom, seen["bar"]) + 1, seen


class Nmbr9Player:
    """Moves the tile as a player would: clicks on the board and keys on a desktop, the
    arrow buttons on a phone."""

    def __init__(self, session, phone: bool):
        self.session, self.page, self.phone = session, session.page, phone

    def ghost(self) -> tuple[int, int, int]:
        turn = self.page.locator("#turn")
        return tuple(int(turn.get_attribute(f"data-{k}")) for k in ("x", "y", "rotation"))

    def to(self, target: Placement) -> None:
        page = self.page
        x, y, rotation = self.ghost()
        while rotation != target.rotation:
            self.press("rotate", "r")
            rotation = (rotation + 1) % 4
            wait_ghost(page, x, y, rotation)
        if not self.phone:
            w, h = target.size
            page.locator("svg[data-board='play']").scroll_into_view_if_needed()
            point = screen_point(page, target.x + (w - 1) // 2, target.y + (h - 1) // 2)
            lesson_answered(page, lambda: page.mouse.click(*point))
        else:
            while (x, y) != (target.x, target.y):
                if x != target.x:
                    self.press("left" if target.x < x else "right", "")
                    x += -1 if target.x < x else 1
                else:
                    self.press("up" if target.y < y else "down", "")
                    y += -1 if target.y < y else 1
                wait_ghost(page, x, y, rotation)
        wait_ghost(page, target.x, target.y, target.rotation)

    def press(self, control: str, key: str) -> None:
        page = self.page
        if key and not self.phone:
            lesson_answered(page, lambda: page.keyboard.press(key))
        else:
            lesson_answered(page, lambda: page.locator(f'#turn [data-key="{control}"]').click())

    def confirm(self) -> None:
        self.press("confirm", "Enter")


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_a_visitor_plays_the_nmbr9_tutorial_through(open_browser, language, screen):
    words = WORDS[language]
    options = {**(PHONE if screen == "phone" else {}), "locale": language}
    session = open_browser(**options)
    page = session.page
    player = Nmbr9Player(session, screen == "phone")
    lessons = nmbr9_tutorial.LESSONS

    session.goto("/help/nmbr9/")
    page.locator("[data-learn]").click()
    # The keys are the page's script's, which runs once the page has loaded (a click on
    # a link waits only for the new page to begin).
    page.wait_for_load_state()
    expect(page.locator("h1")).to_have_text(words["learn"])
    expect(page.locator("#learn")).to_have_attribute("data-step", "1")
    expect(page.locator("[data-lesson]")).to_have_text(said(lessons[0].says, language))

    # 1. Anywhere: where the tile is shown first.
    player.confirm()
    expect(page.locator("#learn")).to_have_attribute("data-step", "2")
    expect(page.locator("[data-lesson]")).to_have_text(said(lessons[1].says, language))

    # 2. Shown on a spot the step takes, beside the first tile, nothing refused before the
    # visitor acts; moved off to touch nothing, refused with the rule; then placed.
    expect(page.locator("[data-spots]")).to_have_count(1)
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
    expect(page.locator("#turn [role=alert]")).to_have_count(0)
    first = Placement.parse("9@0,0r0")
    second = Placement.parse("9@3,0r0")
    assert player.ghost() == (3, 0, 0)
    player.to(Placement.parse("9@4,0r0"))
    expect(page.locator("[data-verdict]")).to_have_text(words["not adjacent"])
    player.confirm()
    shows_refusal(session, words["not adjacent"])
    expect(page.locator("#learn")).to_have_attribute("data-step", "2")
    player.to(second)
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
    if screen == "phone":  # scrolled down the page, and the board to its right-hand side
        page.evaluate(
            """() => {
              const wrap = document.querySelector('#learn .board-wrap.own');
              wrap.scrollLeft = wrap.scrollWidth;
              window.scrollTo(0, document.documentElement.scrollHeight);
            }"""
        )
    player.confirm()
    expect(page.locator("#learn")).to_have_attribute("data-step", "3")
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
    if screen == "phone":
        whole_board_in_sight(page)

    # 3. On level 0 it is legal but not the lesson; over the gap between the 9s it is not
    # legal; on top of both it is.
    placed = (first, second)
    board = Board(placed)
    rotation = player.ghost()[2]
    on_top = next(p for p, _ in nmbr9_tutorial.accepted(placed) if p.rotation == rotation)
    x, y, _ = player.ghost()
    beside = min(
        (p for p, level in board.legal_moves(7) if level == 0 and p.rotation == rotation),
        key=lambda p: abs(p.x - x) + abs(p.y - y),
    )
    player.to(beside)
    player.confirm()
    shows_refusal(session, said(lessons[2].instead, language))
    expect(page.locator("#learn")).to_have_attribute("data-step", "3")
    bridging = on_top.moved(on_top.x, on_top.y + 1)
    assert board.reason(bridging).startswith("gap")
    player.to(bridging)
    expect(page.locator("[data-verdict]")).to_have_text(words["gap"])
    player.to(on_top)
    expect(page.locator("[data-verdict]")).to_contain_text("7 × 1 = 7")
    player.confirm()
    expect(page.locator("#learn")).to_have_attribute("data-step", "4")
    expect(page.locator("[data-score]")).to_have_text("7")

    # 4. and 5. Wherever the tile fits, shown with its points.
    placed += (on_top,)
    for number in (4, 5):
        expect(page.locator("[data-lesson]")).to_have_text(said(lessons[number - 1].says, language))
        rotation = player.ghost()[2]
        spot = next(p for p, _ in nmbr9_tutorial.accepted(placed) if p.rotation == rotation)
        player.to(spot)
        player.confirm()
        placed += (spot,)
        expect(page.locator("#learn")).to_have_attribute("data-step", str(number + 1))
    learned = page.locator("[data-learned]")
    expect(learned).to_be_visible()
    expect(learned.locator("li")).to_have_count(len(nmbr9_tutorial.LEARNED))
    score = Board(placed).score()
    expect(page.locator("[data-score]")).to_have_text(str(score))
    if screen == "phone":
        fits_the_screen(page, 390)

    # Back shows the last card again, and a reload keeps it; forward, the end.
    page.go_back()
    expect(page.locator("#learn")).to_have_attribute("data-step", "5")
    page.reload()
    expect(page.locator("#learn")).to_have_attribute("data-step", "5")
    expect(page.locator("[data-lesson]")).to_have_text(said(lessons[4].says, language))
    page.go_forward()
    expect(page.locator("[data-learned]")).to_be_visible()

    # Learning stored nothing; playing makes the visitor a guest with a game.
    assert User.objects.count() == 0 and Match.objects.count() == 0
    page.get_by_role("button", name=words["solo"]).click()
    expect(page.locator("#play")).to_be_visible()
    assert Match.objects.filter(kind="solo", game="nmbr9").count() == 1


def pick(page, card: str) -> None:
    lesson_answered(page, lambda: page.locator(f'#turn [data-pick="{card}"]').click())


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_a_visitor_plays_the_nmbrs_tutorial_through(open_browser, language, screen):
    words = WORDS[language]
    options = {**(PHONE if screen == "phone" else {}), "locale": language}
    session = open_browser(**options)
    page = session.page
    lessons = nmbrs_tutorial.LESSONS
    step = page.locator("#learn")

    session.goto("/help/nmbrs/")
    page.locator("[data-learn]").click()
    page.wait_for_load_state()  # the buttons are htmx's once the page has loaded
    expect(step).to_have_attribute("data-step", "1")
    expect(page.locator("[data-lesson]")).to_have_text(said(lessons[0].says, language))

    # 1. Passing the discard is legal, but the step takes it.
    lesson_answered(page, lambda: page.locator('[data-move="pass"]').click())
    shows_refusal(session, said(lessons[0].instead, language))
    expect(step).to_have_attribute("data-step", "1")
    take = page.locator('[data-move="take"]')
    expect(take).to_have_class(re.compile(r"\blearn-target\b"))
    lesson_answered(page, lambda: take.click())
    expect(step).to_have_attribute("data-step", "2")

    # 2. The cards to select are marked; a discard is not the lesson; a play written out
    # before laying says the rule; then the series is laid.
    marked = page.locator("#turn .pick.learn-target")
    expect(marked).to_have_count(3)
    pick(page, "35")
    lesson_answered(page, lambda: page.locator('[data-move="discard"]').click())
    shows_refusal(session, said(lessons[1].instead, language))
    page.locator("details.write-play summary").click()
    page.fill('input[name="attempt"]', "extend 1: 35")
    lesson_answered(page, lambda: page.locator("details.write-play button[type=submit]").click())
    expect(page.locator("details.write-play [data-verdict]")).to_contain_text(words["lay first"])
    for card in ("12", "14", "16"):
        pick(page, card)
    lay = page.locator('[data-play="lay 12,14,16"] button')
    expect(lay).to_have_class(re.compile(r"\blearn-target\b"))
    lesson_answered(page, lambda: lay.click())
    expect(step).to_have_attribute("data-step", "3")
    expect(page.locator('[data-series="2"] .nmbrs-card')).to_have_count(3)

    # 3. A card added to series 1.
    expect(page.locator("[data-lesson]")).to_have_text(said(lessons[2].says, language))
    pick(page, "35")
    lesson_answered(page, lambda: page.locator('[data-play="extend 1: 35"] button').click())
    expect(step).to_have_attribute("data-step", "4")
    expect(page.locator('[data-series="1"] .nmbrs-card')).to_have_count(4)

    # 4. A discard ends the turn.
    pick(page, "88")
    discard = page.locator('[data-move="discard"]')
    expect(discard).to_have_class(re.compile(r"\blearn-target\b"))
    lesson_answered(page, lambda: discard.click())
    expect(page.locator("[data-learned]")).to_be_visible()
    expect(page.locator("[data-discard] .nmbrs-card")).to_have_attribute("data-card", "88")
    expect(page.locator("[data-score]")).to_have_text("54")
    if screen == "phone":
        fits_the_screen(page, 390)

    page.go_back()
    expect(step).to_have_attribute("data-step", "4")
    page.reload()
    expect(step).to_have_attribute("data-step", "4")
    page.go_forward()
    expect(page.locator("[data-learned]")).to_be_visible()
    expect(page.locator("[data-play-bot]")).to_have_attribute(
        "href", "/solo/new/?game=nmbrs&bot=medium"
    )
    assert User.objects.count() == 0 and Match.objects.count() == 0
