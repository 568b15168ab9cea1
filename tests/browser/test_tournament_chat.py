"""A tournament's chat in Chromium: two entrants talk on the tournament's page (Enter sends,
the other's page finds it without a reload), and a player who has not entered reads along
without a box to write in."""

import pytest
from playwright.sync_api import expect

from games.services.features import tournaments
from tests.browser.pages import chat_messages as messages_of
from tests.browser.pages import log_in
from tests.browser.pages import write_chat as write
from tests.factories import new_swiss

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_entrants_chat_on_the_tournament_page_and_others_read_along(
    open_browser, alice, bob, carol
):
    tournament = new_swiss(alice, name="Chatty cup")
    tournaments.join(tournament.pk, bob)
    pages = {name: log_in(open_browser(), name) for name in ("alice", "bob", "carol")}
    for page in pages.values():
        page.goto(page.url.rstrip("/") + tournament.get_absolute_url())
        expect(page.locator("#chat [data-no-messages]")).to_be_visible()
        page.evaluate("() => { window.notReloaded = true; }")

    write(pages["alice"], "welcome to the cup")
    expect(messages_of(pages["alice"])).to_have_text(["welcome to the cup"])
    # bob's and carol's pages look for new messages every 10 seconds
    for name in ("bob", "carol"):
        expect(messages_of(pages[name])).to_have_text(["welcome to the cup"], timeout=15000)
        assert pages[name].evaluate("() => window.notReloaded === true")
    write(pages["bob"], "thanks!")
    expect(messages_of(pages["bob"])).to_have_text(["welcome to the cup", "thanks!"])

    carol = pages["carol"]
    expect(carol.locator("#chat-text")).to_have_count(0)
    expect(carol.locator("#chat [data-chat-closed]")).to_have_text(
        "Only the entrants write in this chat."
    )
    expect(carol.locator("#chat [data-report]").first).to_be_visible()
