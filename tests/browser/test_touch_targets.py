"""The game's own controls on a phone (390 CSS px wide): the arrows, the rotations, Confirm,
the list of spots and the levels shown are each at least 44 x 44 CSS px, in English and in
German, and the game page does not scroll sideways."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.pages import PHONE, log_in
from tests.factories import make_match, play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = {
    "en": ("Move the tile", re.compile("^Where the "), "Show it there", "Levels shown"),
    "de": ("Plättchen bewegen", re.compile("^Wohin mit "), "Dort zeigen", "Gezeigte Ebenen"),
}
COORDINATES = {"en": "Place by coordinates", "de": "Nach Koordinaten legen"}


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_controls_of_a_turn_are_large_enough_to_touch_on_a_phone(
    open_browser, alice, bob, language
):
    match = make_match(alice, bob, seed=6, time_control="1d")
    for _ in range(8):  # two levels by then: the buttons that show one at a time
        play(match, alice)
        play(match, bob)
    page = log_in(open_browser(locale=language, **PHONE), "alice")
    page.goto(page.url.rstrip("/") + match.get_absolute_url())
    controls_name, spots, show, levels = NAMES[language]
    controls = page.get_by_role("navigation", name=controls_name)
    expect(controls).to_be_visible()
    targets = [
        *controls.get_by_role("link").all(),
        *controls.get_by_role("button").all(),
        page.get_by_role("combobox", name=spots),
        page.get_by_role("button", name=show),
        *page.get_by_role("group", name=levels).get_by_role("button").all(),
        *page.locator("[data-spot-list] .spot-rotations").get_by_role("link").all(),
    ]
    page.get_by_text(COORDINATES[language]).click()
    targets += page.locator("details.coords").get_by_role("spinbutton").all()
    # four arrows, two rotations, Confirm, the list and its button, three levels shown, the
    # other rotations' spots, the coordinates
    assert len(targets) >= 16
    small = {}
    for target in targets:
        box = target.bounding_box()
        assert box is not None
        if box["width"] < 44 or box["height"] < 44:
            small[target.get_attribute("title") or target.inner_text()[:30]] = box
    assert small == {}
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
