"""A turn never leaves the player without a way on, on a desktop and on a phone, in English
and German: a plain game offers no step that cannot be followed by another, and an address
that composed one shows the turn with Undo and Confirm."""

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Move
from games.nmbr9.rules import RULES
from tests.browser.pages import PHONE, answered, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en": {"undo": "Undo the last step", "confirm": "Confirm the turn", "add": "Add, then more…"},
    "de": {
        "undo": "Letzten Schritt zurücknehmen",
        "confirm": "Zug bestätigen",
        "add": "Hinzufügen, dann weiter …",
    },
}


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_a_step_is_always_followed_by_undo_and_confirm(open_browser, alice, language, screen):
    words = WORDS[language]
    options = {**(PHONE if screen == "phone" else {}), "locale": language}
    page = log_in(open_browser(**options), "alice")
    plain = services.start_solo(alice, seed=3)
    page.goto(page.url.rstrip("/") + plain.get_absolute_url())
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
    expect(page.locator("[data-add-step]")).to_have_count(0)

    # An address that has already composed the tile (kept from before): Undo and Confirm.
    spot = str(RULES.auto_move(services.load(plain).state, 0))
    composed = f"{page.url.split('?')[0]}?{urlencode({'steps': spot})}"
    page.goto(composed)
    expect(page.get_by_role("link", name=words["undo"])).to_be_visible()
    expect(page.get_by_role("button", name=words["confirm"])).to_be_visible()
    answered(page, lambda: page.get_by_role("link", name=words["undo"]).click())
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
    page.goto(composed)
    answered(page, lambda: page.get_by_role("button", name=words["confirm"]).click())
    expect(page.locator(".round strong")).to_have_text("2")
    assert Move.objects.get(match=plain).text == spot

    # Where more can follow (gap fillers), "Add, then more…" keeps the step, with both ways on.
    fillers = services.start_solo(alice, seed=3, options={"fillers": True})
    page.goto(page.url.split("?")[0].replace(plain.get_absolute_url(), fillers.get_absolute_url()))
    answered(page, lambda: page.get_by_role("link", name=words["add"]).click())
    expect(page.locator("[data-steps]")).to_be_visible()
    expect(page.get_by_role("link", name=words["undo"])).to_be_visible()
    expect(page.get_by_role("button", name=words["confirm"])).to_be_visible()
    answered(page, lambda: page.get_by_role("link", name=words["undo"]).click())
    expect(page.locator("[data-steps]")).to_have_count(0)
    expect(page.locator('[data-ghost="legal"]')).to_have_count(1)
