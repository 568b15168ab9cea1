"""Push notifications in Settings: adding a device (the browser's subscription, checked
strictly), removing one, the kinds a player gets, and the section when the site has no keys;
the devices in the export and when an account is closed; the VAPID settings and keys."""

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import reverse

from games.models import Profile, PushSubscription
from games.services.features import closing, export, push_devices
from games.views.pushes import device_name
from tests.factories import manage
from tests.pushservice import Device

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
CHROME_ON_ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)


#: Where Chrome's pushes go (Firebase Cloud Messaging), a device's endpoint under it.
FCM = "https://fcm.googleapis.com/fcm/send/"


def subscription(endpoint=FCM + "abc123", **changes) -> dict:
    made = Device(endpoint, "").subscription()
    made.update(changes)
    return made


def post(client, data, **headers):
    body = {"subscription": data if isinstance(data, str) else json.dumps(data)}
    return client.post(reverse("add_device"), body, headers=headers)


def test_a_subscription_is_added_and_listed_with_the_browsers_name(client, vapid, alice):
    client.force_login(alice)
    sent = subscription()
    answer = post(client, sent, user_agent=CHROME_ON_ANDROID)
    assert answer.status_code == 200
    device = PushSubscription.objects.get()
    assert (device.player, device.endpoint) == (alice, sent["endpoint"])
    assert (device.p256dh, device.auth) == (sent["keys"]["p256dh"], sent["keys"]["auth"])
    page = answer.content.decode()
    assert "data-push-devices" in page and "<html" not in page  # the list alone
    assert "Chrome on Android" in page
    assert "This device gets push notifications now." in page
    assert reverse("remove_device", args=[device.pk]) in page


@pytest.mark.parametrize(
    "data",
    [
        "{not json",
        "[]",
        json.dumps({"endpoint": "https://fcm.googleapis.com/x"}),
        json.dumps({"keys": subscription()["keys"]}),
        json.dumps(subscription(keys={"p256dh": subscription()["keys"]["p256dh"]})),
        json.dumps(subscription(keys={"auth": subscription()["keys"]["auth"]})),
        json.dumps(subscription(keys={"p256dh": "BAAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"})),
        json.dumps(subscription(keys={**subscription()["keys"], "auth": "c2hvcnQ"})),
        json.dumps(subscription(keys={**subscription()["keys"], "auth": "ä" * 22})),
        json.dumps(subscription(endpoint=12)),
        "",
        json.dumps(subscription()) + " " * 4000,
    ],
)
def test_what_is_not_a_subscription_is_refused_with_a_message(client, vapid, alice, data):
    client.force_login(alice)
    answer = post(client, data)
    assert answer.status_code == 400
    assert "This is not a subscription the site can push to." in answer.content.decode()
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://fcm.googleapis.com/fcm/send/abc",
        "http://127.0.0.1:9/push/abc",  # not allowed here (PUSH_LOCAL_ENDPOINTS off)
        "ftp://fcm.googleapis.com/x",
        "https://10.0.0.1/push",
        "https://[::1]/push",
        "https://0x7f.1/push",
        "https://localhost/push",
        "https://user:secret@fcm.googleapis.com/x",
        "https://fcm.googleapis.com:99999/x",
        "https://fcm.googleapis.com/" + "x" * 1000,
        "https://fcm.googleapis.com/a b",
        "https:///x",
    ],
)
def test_an_endpoint_other_than_a_push_service_over_https_is_refused(
    client, vapid, settings, alice, endpoint
):
    settings.PUSH_LOCAL_ENDPOINTS = False
    client.force_login(alice)
    answer = post(client, subscription(endpoint))
    assert answer.status_code == 400
    assert "must be an https:// address" in answer.content.decode()
    assert not PushSubscription.objects.exists()


def test_a_local_push_service_over_http_is_taken_where_the_setting_allows_it(
    client, vapid, settings, alice
):
    settings.PUSH_LOCAL_ENDPOINTS = True
    client.force_login(alice)
    assert post(client, subscription("http://127.0.0.1:8123/push/a")).status_code == 200
    assert post(client, subscription("http://localhost:8123/push/b")).status_code == 200
    assert post(client, subscription("http://192.168.1.5/push/c")).status_code == 400
    assert PushSubscription.objects.count() == 2


NOT_A_PUSH_SERVICE = "The site sends push notifications only through the push services of browsers"


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://evil.example/x",
        "https://fcm.googleapis.com.evil.example/fcm/send/x",  # a listed name, then another
        "https://evilfcm.googleapis.com/fcm/send/x",  # ends like one, but is not under it
        "https://googleapis.com/fcm/send/x",  # above a listed name
        "https://storage.googleapis.com/x",
        "https://metadata.google.internal/computeMetadata/v1/",
    ],
)
def test_an_endpoint_not_of_a_browsers_push_service_is_refused_and_nothing_stored(
    client, vapid, alice, endpoint
):
    client.force_login(alice)
    answer = post(client, subscription(endpoint))
    assert answer.status_code == 400
    page = answer.content.decode()
    assert NOT_A_PUSH_SERVICE in page and urlsplit(endpoint).hostname in page
    assert not PushSubscription.objects.exists()


def test_the_refusal_is_in_the_readers_language(client, vapid, alice):
    Profile.objects.create(player=alice, language="de")
    client.force_login(alice)
    answer = post(client, subscription("https://evil.example/x"))
    assert answer.status_code == 400
    assert (
        "Die Seite schickt Push-Benachrichtigungen nur über die Push-Dienste der Browser, "
        "nicht über evil.example."
    ) in answer.content.decode()
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "endpoint",
    [
        FCM + "dQw4w9WgXcQ:APA91bH",  # Chrome
        "https://android.googleapis.com/gcm/send/abc",  # older Chrome
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABm",  # Firefox
        "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB",  # Edge
        "https://web.push.apple.com/QGtDq2Pf",  # Safari
        "https://FCM.googleapis.com/fcm/send/upper",  # host names know no case
    ],
)
def test_the_push_services_of_browsers_are_taken(client, vapid, alice, endpoint):
    client.force_login(alice)
    assert post(client, subscription(endpoint)).status_code == 200
    assert PushSubscription.objects.get().endpoint == endpoint


def test_a_push_service_the_operator_adds_is_taken(client, vapid, alice, settings):
    client.force_login(alice)
    endpoint = "https://push.example.org/device/1"
    assert post(client, subscription(endpoint)).status_code == 400
    with override_settings(PUSH_SERVICES=[*settings.PUSH_SERVICES, "push.example.org"]):
        assert post(client, subscription(endpoint)).status_code == 200
        assert post(client, subscription("https://eu.push.example.org/2")).status_code == 200
        assert post(client, subscription("https://example.org/3")).status_code == 400
    assert PushSubscription.objects.count() == 2


def test_the_same_endpoint_again_updates_the_device(client, vapid, alice, bob):
    client.force_login(alice)
    post(client, subscription(), user_agent="Firefox/130.0 (Windows NT 10.0)")
    again = subscription()  # new keys, same endpoint
    assert post(client, again, user_agent=CHROME_ON_ANDROID).status_code == 200
    device = PushSubscription.objects.get()
    assert (device.p256dh, device.auth) == (again["keys"]["p256dh"], again["keys"]["auth"])
    assert device_name(device.user_agent) == "Chrome on Android"

    client.force_login(bob)  # the browser signed in as bob now: the device is his
    assert post(client, subscription()).status_code == 200
    assert PushSubscription.objects.get().player == bob


def test_a_player_has_at_most_so_many_devices(client, vapid, alice):
    client.force_login(alice)
    for n in range(push_devices.MOST_DEVICES):
        assert post(client, subscription(f"{FCM}{n}")).status_code == 200
    answer = post(client, subscription(FCM + "one-more"))
    assert answer.status_code == 400
    assert "remove one first" in answer.content.decode()
    assert PushSubscription.objects.count() == push_devices.MOST_DEVICES
    # One of the devices subscribing again is no new device.
    assert post(client, subscription(FCM + "3")).status_code == 200


def test_adding_a_device_needs_the_forms_token_an_account_and_keys(vapid, settings, alice):
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(alice)
    assert post(guarded, subscription()).status_code == 403
    anonymous = Client()
    assert post(anonymous, subscription()).status_code == 302  # to log in
    assert Client().get(reverse("add_device")).status_code in (302, 405)
    client = Client()
    client.force_login(alice)
    assert client.get(reverse("add_device")).status_code == 405
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    answer = post(client, subscription())
    assert answer.status_code == 400
    assert "Push notifications are off on this server." in answer.content.decode()
    assert not PushSubscription.objects.exists()


def test_a_guest_adds_no_device(client, vapid):
    client.post(reverse("new_solo"), {"game": "nmbr9"})  # a guest's game
    assert Profile.objects.filter(guest=True).exists()
    answer = post(client, subscription())
    assert answer.status_code == 302 and reverse("signup") in answer["Location"]
    assert not PushSubscription.objects.exists()


def add(user, endpoint) -> PushSubscription:
    return push_devices.subscribe(user, json.dumps(subscription(endpoint)), CHROME_ON_ANDROID)


def test_a_player_removes_their_own_devices_only(client, vapid, alice, bob):
    mine, theirs = add(alice, FCM + "a"), add(bob, FCM + "b")
    client.force_login(alice)
    assert client.post(reverse("remove_device", args=[theirs.pk])).status_code == 404
    assert client.get(reverse("remove_device", args=[mine.pk])).status_code == 405
    assert PushSubscription.objects.count() == 2
    answer = client.post(reverse("remove_device", args=[mine.pk]), follow=True)
    assert answer.redirect_chain[-1][0] == reverse("settings")
    assert "The device gets no more push notifications." in answer.content.decode()
    assert list(PushSubscription.objects.all()) == [theirs]


def test_the_settings_list_the_devices_and_the_kinds_switch_on_and_off(client, vapid, alice):
    add(alice, FCM + "a")
    client.force_login(alice)
    page = client.get(reverse("settings")).content.decode()
    assert "Notify this device" in page and f'data-key="{vapid}"' in page
    assert "Chrome on Android" in page and "/static/js/push.js" in page
    for label in ("Your move", "Time running out", "Invitations and challenges", "Results"):
        assert label in page
    answer = client.post(reverse("push_kinds"), {"push_alarm": "on", "push_result": "on"})
    assert answer.status_code == 302 and answer["Location"] == reverse("settings") + "#push"
    assert 'id="push"' in page and 'data-asking="Asking your browser…"' in page
    profile = Profile.objects.get(player=alice)
    assert (profile.push_move, profile.push_alarm, profile.push_invite, profile.push_result) == (
        False,
        True,
        False,
        True,
    )


def test_without_keys_the_settings_say_push_is_off_and_offer_no_button(client, settings, alice):
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    client.force_login(alice)
    page = client.get(reverse("settings")).content.decode()
    assert "Push notifications are off on this server." in page
    assert "Notify this device" not in page and "push.js" not in page and "data-key" not in page


def test_the_settings_without_keys_in_german(client, settings, alice):
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    Profile.objects.create(player=alice, language="de")
    client.force_login(alice)
    page = client.get(reverse("settings")).content.decode()
    assert "Push-Benachrichtigungen sind auf diesem Server ausgeschaltet." in page


@pytest.mark.parametrize(
    "agent, name",
    [
        (CHROME_ON_ANDROID, "Chrome on Android"),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
            "Edge on Windows",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
            "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            "Safari on iOS",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0",
            "Firefox on macOS",
        ),
        ("Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/131.0 Safari/537.36", "Chrome on Linux"),
        ("curl/8.0", "An unknown browser"),
        ("", "An unknown browser"),
    ],
)
def test_a_device_is_named_by_its_browser_and_system(agent, name):
    assert device_name(agent) == name


def test_the_export_holds_the_devices_and_closing_the_account_removes_them(vapid, alice, bob):
    mine, theirs = add(alice, FCM + "a"), add(bob, FCM + "b")
    Profile.objects.update_or_create(player=alice, defaults={"push_result": False})
    data = export.everything(alice)
    assert data["push_devices"] == [
        {
            "endpoint": mine.endpoint,
            "user_agent": CHROME_ON_ANDROID,
            "added": mine.created.isoformat(),
        }
    ]
    assert data["profile"]["push_notifications"] == {
        "move": True,
        "alarm": True,
        "invite": True,
        "result": False,
    }
    closing.close(User.objects.get(pk=alice.pk))
    assert list(PushSubscription.objects.all()) == [theirs]


def test_the_keys_command_prints_a_pair_the_settings_take(tmp_path):
    printed = subprocess.run(
        [sys.executable, "manage.py", "vapid_keys", "--subject", "mailto:ops@example.org"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    lines = dict(line.split("=", 1) for line in printed.splitlines())
    assert set(lines) == {"VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY", "VAPID_SUBJECT"}
    assert lines["VAPID_SUBJECT"] == "mailto:ops@example.org"
    assert manage("check", **lines).returncode == 0
    other = subprocess.run(
        [sys.executable, "manage.py", "vapid_keys"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    mixed = {**lines, "VAPID_PUBLIC_KEY": other.splitlines()[0].split("=", 1)[1]}
    result = manage("check", **mixed)
    assert result.returncode != 0
    assert "VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY" in result.stderr


@pytest.mark.parametrize(
    "env, complaint",
    [
        ({"VAPID_PUBLIC_KEY": "BAAA"}, "together"),
        (
            {"VAPID_PUBLIC_KEY": "x", "VAPID_PRIVATE_KEY": "y", "VAPID_SUBJECT": "me@example.org"},
            "mailto:",
        ),
        (
            {"VAPID_PUBLIC_KEY": "x", "VAPID_PRIVATE_KEY": "short", "VAPID_SUBJECT": "mailto:a@b"},
            "P-256 private key",
        ),
    ],
)
def test_vapid_settings_that_cannot_work_stop_start_up(env, complaint):
    result = manage("check", **env)
    assert result.returncode != 0
    assert complaint in result.stderr
