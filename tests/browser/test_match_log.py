"""The match log in the browser: every number of a long log shows in full, on a desktop and
on a phone, and each step's move notation is on hover."""

import pytest
from playwright.sync_api import expect

from games.models import Move
from tests.browser.pages import log_in
from tests.factories import make_match, play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The room each number of the list needs beside its entry, and the room it has: the list's
#: left padding (the numbers lie outside their entries, and the list's scrolling box clips
#: whatever lies outside it). "100. " stands for any longer log.
ROOM = """(log) => {
  const li = log.querySelector("li");
  const context = document.createElement("canvas").getContext("2d");
  context.font = getComputedStyle(li).font;
  const needed = (n) => context.measureText(`${n}. `).width;
  return {
    count: log.children.length,
    needed: Math.max(needed(log.children.length), needed(100)),
    room: parseFloat(getComputedStyle(log).paddingLeft),
  };
}"""


@pytest.mark.parametrize(
    "viewport", [None, {"width": 390, "height": 844}], ids=["desktop", "phone"]
)
def test_the_numbers_of_a_long_match_log_are_not_clipped(open_browser, alice, bob, viewport):
    match = make_match(alice, bob)
    for _ in range(6):
        for user in (alice, bob):
            play(match, user)
    session = open_browser(**({"viewport": viewport} if viewport else {}))
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    log = page.locator("ol.log")
    expect(log.locator("li")).to_have_count(12)
    room = log.evaluate(ROOM)
    assert room["count"] == 12
    assert room["needed"] <= room["room"], room
    # the newest entry first, in words, its move on hover
    last = Move.objects.filter(match=match).latest("ply").text
    newest = log.locator("li").first
    expect(newest).to_have_attribute("title", last)
    expect(newest).to_contain_text(f"bob placed the {last[6]} on level ")
