"""Push notifications in Settings, in headless Chromium.

Chromium's Push API refuses every subscription in an off-the-record profile, which every
Playwright context is (it says so in its console: crbug.com/41124656), and in a profile of
its own Debian's Chromium has no push service to reach (no Google keys): a subscription is
never answered. So the first tests check what a player meets for real: the permission asked
when the button is pressed, the service worker registered, the subscription asked for with
the site's key, and the site's own message when the browser refuses. The last one stands in
a subscription for Chromium's (``PushManager.prototype.subscribe`` replaced before the page
loads) whose endpoint is the tests' own push service, with keys the test made: the device is
added and listed, a push for it arrives and reads, and the device is removed with its button.
"""

import json

import pytest
from playwright.sync_api import expect

from games.infra import webpush
from games.models import PushMessage, PushSubscription
from games.services.match import lobby
from tests.browser.pages import REPORT_VIOLATIONS, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Chromium's own console error when a page subscribes off the record.
INCOGNITO = "Chrome currently does not support the Push API in incognito mode"

#: Each call of the push manager's subscribe is noted (with the key it was given) and then
#: made as usual.
NOTE_SUBSCRIBE = """(() => {
  const subscribe = PushManager.prototype.subscribe;
  window.subscribeCalls = [];
  PushManager.prototype.subscribe = function (options) {
    window.subscribeCalls.push({
      userVisibleOnly: options.userVisibleOnly,
      key: Array.from(new Uint8Array(options.applicationServerKey)),
    });
    return subscribe.call(this, options);
  };
})();"""

#: The service worker's registration once it is active.
READY = "navigator.serviceWorker.ready.then((registration) => registration.scope)"


def key_bytes(key: str) -> list[int]:
    from tests.pushservice import b64decode

    return list(b64decode(key))


def open_settings(open_browser, **options):
    session = open_browser(**options)
    session.page.add_init_script(REPORT_VIOLATIONS)
    session.page.add_init_script(NOTE_SUBSCRIBE)
    page = log_in(session, "alice")
    session.goto("/settings/")
    return session, page


def test_chromium_off_the_record_refuses_the_subscription_and_the_site_says_so(
    open_browser, live_server, vapid, alice
):
    session, page = open_settings(open_browser)
    session.context.grant_permissions(["notifications"], origin=live_server.url)
    expect(page.locator("[data-no-devices]")).to_be_visible()
    page.get_by_role("button", name="Notify this device").click()

    expect(page.locator("[data-push-message]")).to_have_text(
        "This browser could not subscribe to push notifications. Try again later, or in "
        "another browser."
    )
    assert page.evaluate("Notification.permission") == "granted"
    assert page.evaluate(READY) == live_server.url + "/"  # the service worker is registered
    assert page.evaluate("window.subscribeCalls") == [
        {"userVisibleOnly": True, "key": key_bytes(vapid)}
    ]
    expect(page.get_by_role("button", name="Notify this device")).to_be_enabled()
    assert not PushSubscription.objects.exists()
    # Chromium's own word on it is the only console error.
    assert len(session.errors) == 1 and INCOGNITO in session.errors[0], session.errors
    session.errors.clear()


def test_a_player_who_does_not_allow_notifications_is_told_how_to(
    open_browser, live_server, vapid, alice
):
    session, page = open_settings(open_browser, locale="de")
    page.get_by_role("button", name="Dieses Gerät benachrichtigen").click()
    expect(page.locator("[data-push-message]")).to_have_text(
        "Benachrichtigungen sind für diese Seite nicht erlaubt: Erlaube sie, wenn dein Browser "
        "fragt, oder in seinen Einstellungen für diese Seite."
    )
    assert page.evaluate("Notification.permission") == "denied"
    assert page.evaluate("window.subscribeCalls") == []  # nothing asked of the push service
    assert not PushSubscription.objects.exists()


def test_without_keys_the_settings_offer_no_button(open_browser, settings, alice):
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    session, page = open_settings(open_browser)
    expect(page.locator("[data-push-off]")).to_have_text(
        "Push notifications are off on this server."
    )
    expect(page.locator("[data-push-add]")).to_have_count(0)


def stand_in_for(subscription: dict) -> str:
    """An init script: the push manager answers every subscription with ``subscription``
    (what ``toJSON`` gives), noting the call as ``NOTE_SUBSCRIBE`` does."""
    return f"""(() => {{
  window.subscribeCalls = [];
  PushManager.prototype.subscribe = async function (options) {{
    window.subscribeCalls.push({{
      userVisibleOnly: options.userVisibleOnly,
      key: Array.from(new Uint8Array(options.applicationServerKey)),
    }});
    const made = {json.dumps(subscription)};
    return {{ endpoint: made.endpoint, toJSON: () => made }};
  }};
}})();"""


def test_a_device_is_added_gets_a_push_and_is_removed(
    open_browser, live_server, push_service, vapid, alice, bob
):
    device = push_service.device()
    session = open_browser()
    page = session.page
    page.add_init_script(REPORT_VIOLATIONS)
    page.add_init_script(stand_in_for(device.subscription()))
    log_in(session, "alice")
    session.goto("/settings/")
    session.context.grant_permissions(["notifications"], origin=live_server.url)
    page.get_by_role("button", name="Notify this device").click()

    expect(page.locator("[data-push-message]")).to_have_text(
        "This device gets push notifications now."
    )
    listed = page.locator("[data-device]")
    expect(listed).to_have_count(1)
    expect(listed.locator("[data-device-name]")).to_have_text("Chrome on Linux")
    assert page.evaluate("window.subscribeCalls") == [
        {"userVisibleOnly": True, "key": key_bytes(vapid)}
    ]
    stored = PushSubscription.objects.get()
    assert (stored.player, stored.endpoint) == (alice, device.endpoint)

    # A push for the device is encrypted with the keys the page posted: it arrives and reads.
    match = lobby.create_match(bob, players=2, time_control="1d", rated=True, invite=["alice"])
    webpush.send_many(list(PushMessage.objects.values_list("pk", flat=True)))
    (push,) = push_service.pushes(device)
    assert push["title"] == "Invitation" and push["url"].endswith(match.get_absolute_url())

    listed.get_by_role("button", name="Remove").click()
    expect(page.locator(".messages li")).to_contain_text(
        "The device gets no more push notifications."
    )
    expect(page.locator("[data-device]")).to_have_count(0)
    expect(page.locator("[data-no-devices]")).to_be_visible()
    assert not PushSubscription.objects.exists()
