"""The site as an installable app in headless Chromium: the service worker takes the whole
site, the manifest reads without errors, Chromium finds nothing against installing it, and
a page opened offline is the offline page."""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.pages import REPORT_VIOLATIONS
from tests.factories import CHROMIUM_FLAGS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The service worker's registration once its worker is active: its scope and state.
READY = """navigator.serviceWorker.ready.then((registration) => new Promise((resolve) => {
  const worker = registration.active;
  const done = () => resolve({ scope: registration.scope, state: worker.state });
  if (worker.state === "activated") done();
  else worker.addEventListener("statechange", () => worker.state === "activated" && done());
}))"""

#: The caches of the site (their names without their version) and the pages they keep.
CACHED = """async () => {
  const names = await caches.keys();
  const kept = [];
  for (const name of names) {
    for (const request of await (await caches.open(name)).keys()) {
      kept.push(new URL(request.url).pathname);
    }
  }
  return [names.map((name) => name.split("-")[0]), kept];
}"""


#: The language of the offline page the service worker keeps.
OFFLINE_LANGUAGE = """async () => {
    const cache = await caches.open((await caches.keys())[0]);
    const page = await cache.match("/offline/", { ignoreVary: true });
    return page && page.headers.get("Content-Language");
}"""


def test_the_worker_takes_the_site_and_answers_a_page_opened_offline(open_browser, live_server):
    session = open_browser()
    page = session.page
    page.add_init_script(REPORT_VIOLATIONS)
    session.goto("/")
    registration = page.evaluate(READY)
    assert registration == {"scope": live_server.url + "/", "state": "activated"}
    cdp = session.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == live_server.url + "/manifest.webmanifest"
    assert manifest["errors"] == []
    assert '"name": "nmbr9site"' in manifest["data"]
    # Chromium installs nothing from an off-the-record context such as this one, and says so;
    # the test below checks installing in a profile of its own.
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in errors] == ["in-incognito"]

    # Offline, a page opened is the offline page, at the page's own address; once online
    # again, its link brings the page.
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    session.context.set_offline(True)
    session.goto("/leaderboard/")
    expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
    assert page.url == live_server.url + "/leaderboard/"
    session.context.set_offline(False)
    page.get_by_role("link", name="Try again").click()
    expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
    # The pages seen on the way are not kept: the offline page is all the worker keeps.
    assert page.evaluate(CACHED) == [["offline"], ["/offline/"]]


def test_chromium_finds_nothing_against_installing_the_site(
    browser, chromium_path, live_server, tmp_path
):
    """In a profile of its own (not off the record), as a player's browser is."""
    context = browser.browser_type.launch_persistent_context(
        tmp_path, executable_path=chromium_path, args=CHROMIUM_FLAGS
    )
    try:
        page = context.new_page()
        errors = []
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(live_server.url + "/")
        page.evaluate(READY)
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
        icon = cdp.send("Page.getManifestIcons")["primaryIcon"]
        assert icon is not None  # the 192 px or 512 px icon, fetched and decoded
        assert errors == []
    finally:
        context.close()


#: The notifications the site's worker shows, once there are ``count`` of them (or after
#: five seconds).
# Up to 10 s, the time every other wait of the browser tests has (BrowserSession): 5 s once
# ran out while the suite's other processes kept both cores busy.
NOTIFICATIONS = """async (count) => {
  const registration = await navigator.serviceWorker.ready;
  let shown = [];
  for (let tries = 0; tries < 200 && shown.length < count; tries++) {
    if (tries) await new Promise((resolve) => setTimeout(resolve, 50));
    shown = await registration.getNotifications();
  }
  return shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
}"""


def test_a_push_shows_a_notification_that_opens_only_the_sites_pages(open_browser, live_server):
    session = open_browser()
    page = session.page
    session.context.grant_permissions(["notifications"], origin=live_server.url)
    session.goto("/")
    page.evaluate(READY)
    cdp = session.context.new_cdp_session(page)
    registrations = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    # The worker takes the page while it is still activating (clients.claim() in its activate
    # step); a push delivered before it is activated can be lost.
    page.wait_for_function(
        "navigator.serviceWorker.controller !== null"
        " && navigator.serviceWorker.controller.state === 'activated'"
    )
    (registration,) = [r for r in registrations if r["scopeURL"] == live_server.url + "/"]

    def push(data: str) -> None:
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": live_server.url,
                "registrationId": registration["registrationId"],
                "data": data,
            },
        )

    push(json.dumps({"title": "Your move", "body": "In a match", "url": "/lobby/", "tag": "m1"}))
    push("")  # a push without data
    yours = {"title": "Your move", "body": "In a match", "tag": "m1", "data": {"url": "/lobby/"}}
    plain = {"title": "nmbr9site", "body": "", "tag": "nmbr9site", "data": {"url": "/"}}
    assert page.evaluate(NOTIFICATIONS, 2) == [yours, plain]

    # A click opens the page it names when that page is the site's, else the home page.
    (worker,) = session.context.service_workers
    opened = worker.evaluate(
        """["/lobby/", "https://example.org/", "//example.org/x", "javascript:alert(1)", 7]
        .map((url) => target(url).href)"""
    )
    site = live_server.url
    assert opened == [f"{site}/lobby/", f"{site}/", f"{site}/", f"{site}/", f"{site}/"]


def test_the_offline_page_speaks_the_language_the_player_chose(open_browser):
    """An English browser switched to German is shown the offline page in German."""
    session = open_browser(locale="en-GB")
    page = session.page
    session.goto("/")
    page.evaluate(READY)
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    page.select_option("#language-choice", "de")
    page.get_by_role("button", name="Switch").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.wait_for_function(f"({OFFLINE_LANGUAGE})().then((language) => language === 'de')")
    session.context.set_offline(True)
    session.goto("/leaderboard/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", name="You are offline")).to_have_count(0)
    session.context.set_offline(False)


def test_the_offline_page_kept_is_in_the_language_asked_for_last(open_browser):
    """Two pages tell the worker their languages one after the other: the answer for the
    first coming last does not replace the second's."""
    session = open_browser(locale="en-GB")
    page = session.page
    session.goto("/")
    page.evaluate(READY)
    page.wait_for_function(
        "navigator.serviceWorker.controller !== null"
        " && navigator.serviceWorker.controller.state === 'activated'"
    )
    page.wait_for_function(f"({OFFLINE_LANGUAGE})().then((language) => language === 'en')")
    held = []
    session.context.route(re.compile(r"/offline/\?language=de$"), lambda route: held.append(route))
    tell = "(language) => navigator.serviceWorker.controller.postMessage({ language })"
    page.evaluate(tell, "de")  # its answer waits
    for _wait in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the worker fetched no German offline page"
    page.evaluate(tell, "en")  # the page shown since: English, the one kept already
    page.wait_for_timeout(300)
    held[0].continue_()
    page.wait_for_timeout(1000)
    assert page.evaluate(OFFLINE_LANGUAGE) == "en"
