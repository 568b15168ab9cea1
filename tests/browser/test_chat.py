"""The chat in Chromium: two players talk in a match, live and without disturbing a move being
made, and find their words in the replay; a player reports a message, a member of the staff
removes it and mutes its author in the admin, who then cannot write; on a phone, in German."""

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import expect

from games.models import ChatBan, Report
from games.services.features import chat_rooms
from tests.browser.pages import answered, log_in
from tests.browser.pages import chat_messages as messages_of
from tests.browser.pages import write_chat as write
from tests.factories import PASSWORD, make_match, play_to_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_two_players_chat_live_and_find_it_in_the_replay(open_asgi_browser, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    alice_page = log_in(open_asgi_browser(), "alice")
    bob_page = log_in(open_asgi_browser(), "bob")
    for page in (alice_page, bob_page):
        page.goto(page.url.rstrip("/") + match.get_absolute_url())
        expect(page.locator("html")).to_have_attribute("data-live", "open")
        expect(page.locator("#chat [data-no-messages]")).to_be_visible()
        page.evaluate("() => { window.notReloaded = true; }")

    # Alice moves her tile, then talks: the tile stays where she moved it.
    answered(alice_page, lambda: alice_page.keyboard.press("ArrowRight"))
    alice_page.evaluate("() => { document.getElementById('turn').dataset.kept = 'yes'; }")
    drafted = alice_page.url
    write(alice_page, "good luck, bob")
    expect(messages_of(alice_page)).to_have_text(["good luck, bob"])
    assert alice_page.locator("#turn").get_attribute("data-kept") == "yes"
    assert alice_page.url == drafted

    # Bob, who owes a move too, sees it come without a reload.
    expect(messages_of(bob_page)).to_have_text(["good luck, bob"], timeout=2000)
    expect(bob_page.locator("#chat .chat-who").first).to_have_text("alice")
    write(bob_page, "thanks <b>alice</b>")
    expect(messages_of(alice_page)).to_have_text(
        ["good luck, bob", "thanks <b>alice</b>"], timeout=2000
    )
    assert alice_page.locator("#chat b").count() == 0  # markup is shown as text
    for page in (alice_page, bob_page):
        assert page.evaluate("() => window.notReloaded === true")
        time_shown = page.locator("#chat time[data-local]").first
        expect(time_shown).not_to_contain_text("UTC")  # the browser's local time

    play_to_end(match, [alice, bob])
    bob_page.goto(bob_page.url.split("/game/")[0] + f"/game/{match.pk}/replay/")
    expect(messages_of(bob_page)).to_have_text(["good luck, bob", "thanks <b>alice</b>"])
    expect(bob_page.locator("[data-chat-closed]")).to_be_visible()
    expect(bob_page.locator("#chat-text")).to_have_count(0)


def staff_member() -> User:
    user = User.objects.create_user("mod", "mod@example.com", PASSWORD, is_staff=True)
    names = ["view_report", "change_report", "view_chatmessage", "change_chatmessage"]
    user.user_permissions.add(*Permission.objects.filter(codename__in=names))
    return user


def test_a_reported_message_is_removed_and_its_author_muted_by_the_staff(
    open_asgi_browser, alice, bob
):
    match = make_match(alice, bob, pace="rounds")
    rude = chat_rooms.post(match.pk, bob, "you are hopeless")
    staff_member()

    alice_session = open_asgi_browser()
    alice_page = log_in(alice_session, "alice")
    alice_session.goto(match.get_absolute_url())
    alice_page.locator(f'[data-message="{rude.pk}"] [data-report]').click()
    expect(alice_page.locator("[data-reported-message]")).to_contain_text("you are hopeless")
    alice_page.get_by_label("Insults or harassment").check()
    alice_page.locator("textarea[name=text]").fill("every game")
    alice_page.get_by_role("button", name="Send the report").click()
    expect(alice_page.locator(".messages")).to_contain_text("Thank you")
    assert Report.objects.get().message_id == rude.pk

    staff = open_asgi_browser()
    page = staff.page
    staff.goto("/admin/login/?next=/admin/games/report/")
    page.fill("#id_username", "mod")
    page.fill("#id_password", PASSWORD)
    page.locator("input[type=submit]").click()
    expect(page.locator("#result_list")).to_contain_text("you are hopeless")
    page.locator("#result_list tbody th a").first.click()
    expect(page.locator("[data-reported]")).to_contain_text("you are hopeless")
    for action in ("remove_messages", "ban_for_a_day"):
        page.locator("select[name='CHANGE_FORM-action']").select_option(action)
        page.locator(".actions button[name=index]").click()
        expect(page.locator(".messagelist")).to_be_visible()
    rude.refresh_from_db()
    assert rude.removed is not None and ChatBan.objects.filter(player=bob).exists()

    # Alice's page is told at once; bob can no longer write.
    expect(alice_page.locator(f'[data-message="{rude.pk}"] [data-removed]')).to_be_visible(
        timeout=2000
    )
    bob_session = open_asgi_browser()
    bob_page = log_in(bob_session, "bob")
    bob_session.goto(match.get_absolute_url())
    expect(bob_page.locator("[data-chat-banned]")).to_contain_text(
        "You cannot write in chats until"
    )
    expect(bob_page.locator("#chat-text")).to_have_count(0)


def test_the_chat_fits_a_phone_in_german(open_browser, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    chat_rooms.post(match.pk, bob, "Ein sehr langes Wort: " + "Donaudampfschifffahrt" * 4)
    session = open_browser(locale="de-DE", **PHONE)
    page = log_in(session, "alice")
    session.goto(match.get_absolute_url())
    expect(page.locator("#chat h2")).to_have_text("Chat")
    expect(page.locator("#chat label")).to_have_text("Nachricht an die Mitspieler")
    write(page, "Hallo aus Berlin")
    expect(messages_of(page)).to_have_count(2)
    expect(page.get_by_role("button", name="Diesen Chat stummschalten")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator("#chat").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.get_by_role("button", name="Diesen Chat stummschalten").click()
    expect(page.locator("[data-chat-muted]")).to_contain_text("stummgeschaltet")
    expect(messages_of(page)).to_have_count(0)
    page.get_by_role("button", name="Stummschaltung aufheben").click()
    expect(messages_of(page)).to_have_count(2)


def test_without_javascript_the_chat_is_a_plain_form(browser, live_server, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/accounts/login/")
        page.fill("#id_username", "alice")
        page.fill("#id_password", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.goto(live_server.url + match.get_absolute_url())
        page.locator("#chat-text").fill("no script needed")
        page.get_by_role("button", name="Send").click()
        expect(messages_of(page)).to_have_text(["no script needed"])
        expect(page.locator("#chat-text")).to_have_value("")
    finally:
        context.close()
