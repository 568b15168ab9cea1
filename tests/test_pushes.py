"""Push notifications sent by a real Celery worker to the tests' own push service.

Each device is a subscription made by the test (its keys too); the push service checks the
VAPID signature and decrypts every push with the device's keys (tests/pushservice.py). Time
is moved in the database, never by sleeping.
"""

import ipaddress
import socket
import time
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import redis
from django.conf import settings
from django.utils import timezone
from prometheus_client import REGISTRY

from games.infra import presence, webpush
from games.models import Match, Profile, PushMessage, PushSubscription, Seat
from games.services.features import push_devices, puzzles
from games.services.match import lobby
from games.tasks import sweep
from tests.factories import (
    CHROME_ON_ANDROID,
    add_device,
    drain,
    lose_tasks,
    make_match,
    play,
    play_to_end,
    seat_of,
    wait_for,
)
from tests.pushservice import Device, PushService, certificate


def a_round(match, first, second) -> None:
    """``first`` moves, then ``second``: a new round, and the move is ``first``'s again."""
    play(match, first)
    play(match, second)


def your_move(match) -> dict:
    return {
        "title": "Your move",
        "body": f"Your move in {match}.",
        "url": settings.SITE_URL + match.get_absolute_url(),
        "tag": f"move-{match.pk}",
    }


def settled(marker) -> None:
    """Wait for the tasks sent so far, and those they sent."""
    drain(marker)
    drain(marker)


@pytest.mark.worker
def test_a_move_that_becomes_due_is_pushed_once_and_then_not_again_within_the_hour(
    celery_worker, push_service, alice, bob, carol
):
    match = make_match(alice, bob)
    mine, bobs = add_device(push_service, alice), add_device(push_service, bob)
    a_round(match, alice, bob)

    assert push_service.wait_for(mine, 1) == [your_move(match)]
    settled(carol)
    sweep.delay()  # nothing is due: nothing goes again
    settled(carol)
    assert push_service.pushes(mine) == [your_move(match)]
    assert push_service.pushes(bobs) == []  # bob moved last: he has the match in front of him

    a_round(match, alice, bob)  # due again within the hour: no push
    settled(carol)
    assert len(push_service.pushes(mine)) == 1
    PushMessage.objects.update(created=timezone.now() - timedelta(minutes=61))
    a_round(match, alice, bob)  # an hour later: one push
    assert push_service.wait_for(mine, 2)[1] == your_move(match)


@pytest.mark.worker
def test_no_push_while_the_player_has_the_match_open(
    celery_worker, push_service, alice, bob, carol
):
    match = make_match(alice, bob)
    mine = add_device(push_service, alice)
    presence.note(alice.pk, match.pk)
    a_round(match, alice, bob)
    settled(carol)
    assert push_service.tried(mine) == 0
    assert not PushMessage.objects.exists()  # dropped: it does not count for the hour

    redis.Redis.from_url(settings.REDIS_URL).delete(presence.key(alice.pk, match.pk))
    a_round(match, alice, bob)
    assert push_service.wait_for(mine, 1) == [your_move(match)]


@pytest.mark.worker
def test_a_push_whose_task_was_lost_is_sent_once_by_the_sweep(
    celery_worker, push_service, alice, bob, carol, monkeypatch
):
    match = make_match(alice, bob)
    mine = add_device(push_service, alice)
    lost = lose_tasks(monkeypatch)
    a_round(match, alice, bob)
    monkeypatch.undo()
    assert "games.tasks.send_pushes" in lost
    assert PushMessage.objects.get().send_at <= timezone.now()  # due, waiting for the sweep
    settled(carol)
    assert push_service.tried(mine) == 0

    sweep.delay()
    sweep.delay()
    assert push_service.wait_for(mine, 1) == [your_move(match)]
    settled(carol)
    sweep.delay()
    settled(carol)
    assert push_service.pushes(mine) == [your_move(match)]
    assert push_service.tried(mine) == 1


@pytest.mark.worker
def test_a_device_its_push_service_has_forgotten_is_removed(
    celery_worker, push_service, alice, bob, carol
):
    match = make_match(alice, bob)
    gone, kept = add_device(push_service, alice), add_device(push_service, alice)
    push_service.answers[gone.endpoint] = 410
    a_round(match, alice, bob)

    assert push_service.wait_for(kept, 1) == [your_move(match)]
    wait_for(lambda: not PushSubscription.objects.filter(endpoint=gone.endpoint).exists())
    settled(carol)
    assert push_service.tried(gone) == 1
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [kept.endpoint]
    assert PushMessage.objects.filter(send_at__isnull=False).count() == 0


@pytest.mark.worker
def test_a_failed_push_is_tried_again_later_and_a_device_that_got_it_never_twice(
    celery_worker, push_service, alice, bob, carol
):
    match = make_match(alice, bob)
    troubled, fine = add_device(push_service, alice), add_device(push_service, alice)
    push_service.answers[troubled.endpoint] = 500
    before = timezone.now()
    a_round(match, alice, bob)

    assert push_service.wait_for(fine, 1) == [your_move(match)]
    waiting = wait_for(
        lambda: (
            PushMessage.objects.filter(device__endpoint=troubled.endpoint, attempts=1)
            .filter(send_at__lt=before + webpush.LEASE)  # put off, no longer claimed
            .first()
        )
    )
    assert before + webpush.RETRY <= waiting.send_at <= timezone.now() + webpush.RETRY
    sweep.delay()  # not due yet: nothing goes
    settled(carol)
    assert push_service.tried(troubled) == 1

    del push_service.answers[troubled.endpoint]
    PushMessage.objects.filter(pk=waiting.pk).update(send_at=timezone.now())  # the wait is over
    sweep.delay()
    assert push_service.wait_for(troubled, 1) == [your_move(match)]
    settled(carol)
    assert push_service.pushes(fine) == [your_move(match)]
    assert PushMessage.objects.get(pk=waiting.pk).attempts == 2


@pytest.mark.django_db
def test_a_push_that_keeps_failing_is_tried_with_growing_waits_then_given_up(
    push_service, alice, bob
):
    """No worker here: the test sends the push, as the task would, again and again."""
    match = make_match(alice, bob)
    device = add_device(push_service, alice)
    push_service.answers[device.endpoint] = 500
    a_round(match, alice, bob)
    (message,) = PushMessage.objects.all()
    failed = counted("move", "failed")
    now = timezone.now()
    waits = []
    for _ in range(webpush.ATTEMPTS - 1):
        assert webpush.send_many([message.pk], now=now) == 0
        message.refresh_from_db()
        waits.append(message.send_at - now)
        assert webpush.send_many([message.pk], now=now) == 0  # not due yet: not tried
        now = message.send_at
    assert waits == [webpush.RETRY * 2**n for n in range(webpush.ATTEMPTS - 1)]
    webpush.send_many([message.pk], now=now)
    assert not PushMessage.objects.exists()  # given up
    assert push_service.tried(device) == webpush.ATTEMPTS
    assert counted("move", "failed") - failed == webpush.ATTEMPTS
    assert PushSubscription.objects.filter(pk=message.device_id).exists()  # the device stays


@pytest.mark.worker
def test_the_alarm_goes_even_within_the_hour_and_with_the_match_open(
    celery_worker, push_service, alice, bob, carol
):
    match = make_match(alice, bob)
    mine = add_device(push_service, alice)
    a_round(match, alice, bob)
    push_service.wait_for(mine, 1)
    presence.note(alice.pk, match.pk)
    now = timezone.now()
    Seat.objects.filter(pk=seat_of(match, alice).pk).update(
        deadline=now + timedelta(minutes=9), remind_at=now - timedelta(minutes=3)
    )
    sweep.delay()

    alarm = push_service.wait_for(mine, 2)[1]
    assert alarm == {
        "title": "Time is running out",
        "body": f"Time is running out in {match}.",
        "url": settings.SITE_URL + match.get_absolute_url(),
        "tag": f"alarm-{match.pk}",
    }
    sweep.delay()
    settled(carol)
    assert len(push_service.pushes(mine)) == 2


@pytest.mark.worker
def test_invitations_to_a_match_and_to_a_challenge_are_pushed(
    celery_worker, push_service, alice, bob
):
    bobs = add_device(push_service, bob)
    match = lobby.create_match(
        alice, players=2, time_control="1d", rated=True, invite=["bob"], options={}
    )
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    challenge = puzzles.pick_challenge(offer.pk, alice, offer.first_id)

    got = push_service.wait_for(bobs, 2)
    assert sorted(got, key=lambda push: push["tag"]) == [
        {
            "title": "Invitation",
            "body": "alice invites you to a 2-player match.",
            "url": settings.SITE_URL + invited.get_absolute_url(),
            "tag": f"invite-{invited.pk}",
        }
        for invited in sorted([match, challenge], key=lambda m: f"invite-{m.pk}")
    ]


def results(got: list[dict]) -> list[dict]:
    return [push for push in got if push["tag"].startswith("result-")]


@pytest.mark.worker
def test_the_result_is_pushed_to_every_player(celery_worker, push_service, alice, bob):
    match = make_match(alice, bob, pace="free", removed=4)
    devices = {user.pk: add_device(push_service, user) for user in (alice, bob)}
    play_to_end(match, [alice, bob])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    for user in (alice, bob):
        rank = seat_of(match, user).rank
        device = devices[user.pk]
        wait_for(lambda device=device: results(push_service.pushes(device)))
        (result,) = results(push_service.pushes(device))
        assert result == {
            "title": "Match over",
            "body": f"{match} is over: you finished #{rank}.",
            "url": settings.SITE_URL + match.get_absolute_url(),
            "tag": f"result-{match.pk}",
        }


@pytest.mark.worker
def test_a_german_player_gets_german_words(celery_worker, push_service, alice, bob):
    Profile.objects.update_or_create(player=alice, defaults={"language": "de"})
    match = make_match(alice, bob)
    mine = add_device(push_service, alice)
    a_round(match, alice, bob)
    (push,) = push_service.wait_for(mine, 1)
    assert push["title"] == "Du bist am Zug"
    assert push["body"] == f"Du bist am Zug in Partie #{match.pk}."


@pytest.mark.worker
def test_no_push_of_a_kind_the_player_switched_off(celery_worker, push_service, alice, bob, carol):
    Profile.objects.update_or_create(player=alice, defaults={"push_move": False})
    match = make_match(alice, bob)
    mine = add_device(push_service, alice)
    a_round(match, alice, bob)
    settled(carol)
    assert push_service.tried(mine) == 0
    assert not PushMessage.objects.exists()

    now = timezone.now()  # the alarm is on
    Seat.objects.filter(pk=seat_of(match, alice).pk).update(remind_at=now - timedelta(minutes=1))
    sweep.delay()
    assert [p["title"] for p in push_service.wait_for(mine, 1)] == ["Time is running out"]


@pytest.mark.django_db
def test_nothing_is_written_or_sent_without_vapid_keys(settings, push_service, alice, bob):
    match = make_match(alice, bob)
    add_device(push_service, alice)
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    a_round(match, alice, bob)
    assert not PushMessage.objects.exists()
    assert webpush.due() == []


def counted(kind: str, outcome: str) -> float:
    return (
        REGISTRY.get_sample_value("nmbr9site_pushes_total", {"kind": kind, "outcome": outcome}) or 0
    )


@pytest.fixture
def silent_service():
    """A push service that takes connections and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    webpush.reachable_again()


@pytest.mark.django_db
def test_a_push_service_that_does_not_answer_holds_a_task_once_not_for_every_push(
    vapid, silent_service, alice, bob, monkeypatch
):
    monkeypatch.setattr(webpush, "TIMEOUT", (1.0, 1.0))
    match = make_match(alice, bob)
    for n in range(3):
        device = Device(f"{silent_service}/push/{n}", vapid)
        push_devices.subscribe(alice, device.json(), CHROME_ON_ANDROID)
    a_round(match, alice, bob)
    ids = list(PushMessage.objects.order_by("pk").values_list("pk", flat=True))
    assert len(ids) == 3

    started = time.monotonic()
    assert webpush.send_many(ids) == 0
    assert time.monotonic() - started < 2.5  # one wait of a second, not three
    tried, *left = PushMessage.objects.order_by("pk")
    assert tried.attempts == 1 and tried.send_at > timezone.now()  # tried again later
    assert [(m.attempts, m.send_at <= timezone.now()) for m in left] == [(0, True)] * 2
    assert set(webpush.due()) == {m.pk for m in left}  # still due, for the sweep


@pytest.mark.django_db
def test_the_sweep_forgets_pushes_sent_more_than_a_day_ago(push_service, alice, bob):
    match = make_match(alice, bob)
    add_device(push_service, alice)
    add_device(push_service, alice)
    a_round(match, alice, bob)
    sent, waiting = PushMessage.objects.order_by("pk")
    assert webpush.send_many([sent.pk]) == 1
    long_ago = timezone.now() - webpush.KEPT - timedelta(minutes=1)
    PushMessage.objects.update(created=long_ago)
    sweep()
    assert list(PushMessage.objects.all()) == [
        waiting
    ]  # sent long ago: forgotten; not yet sent: kept


# ------------------------------------------------------------------ addresses refused


@pytest.fixture
def names(monkeypatch) -> dict[str, list[str]]:
    """Host names of the test's own: each resolves to the addresses the test gives it (the
    others as usual)."""
    made: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def resolve(host, port, *args, **kwargs):
        if host in made:
            return [info for address in made[host] for info in real(address, port, *args, **kwargs)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    return made


def stored_device(user, endpoint: str) -> Device:
    """A device stored as it is, however it came in (an older site, by hand)."""
    device = Device(endpoint, "")
    keys = device.subscription()["keys"]
    PushSubscription.objects.create(
        player=user, endpoint=endpoint, p256dh=keys["p256dh"], auth=keys["auth"]
    )
    return device


@pytest.mark.worker
def test_a_device_on_this_machine_is_not_pushed_to_where_the_setting_does_not_allow_it(
    celery_worker, push_service, settings, alice, bob, carol
):
    match = make_match(alice, bob)
    local = add_device(push_service, alice)  # taken while the setting allowed it
    settings.PUSH_LOCAL_ENDPOINTS = False
    refused = counted("move", "refused")
    a_round(match, alice, bob)

    wait_for(lambda: not PushSubscription.objects.exists())
    settled(carol)
    assert push_service.tried(local) == 0
    assert not PushMessage.objects.exists()
    assert counted("move", "refused") - refused == 1


FCM = "https://pinned.fcm.googleapis.com/fcm/send/a"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "endpoint, local, addresses",
    [
        # Not an endpoint the site takes now (stored before, or by hand).
        ("http://127.0.0.1:{port}/push/a", False, None),
        ("http://localhost:{port}/push/a", False, None),
        ("https://10.1.2.3/push/a", False, None),
        ("https://169.254.169.254/latest/meta-data/", True, None),
        ("https://evil.example/x", False, ["93.184.215.14"]),
        # A push service's name, resolving to an address off the internet.
        (FCM, False, ["10.0.0.7"]),
        (FCM, False, ["127.0.0.1"]),
        (FCM, False, ["169.254.169.254"]),
        (FCM, False, ["0.0.0.0"]),
        (FCM, False, ["224.0.0.1"]),
        (FCM, False, ["240.0.0.1"]),
        (FCM, False, ["100.64.0.1"]),
        (FCM, False, ["::1"]),
        (FCM, False, ["fe80::1"]),
        (FCM, False, ["fc00::1"]),
        (FCM, False, ["::ffff:10.0.0.7"]),
        (FCM, False, ["142.250.74.10", "192.168.1.1"]),  # one of its addresses is enough
        (FCM, True, ["10.0.0.7"]),  # the setting allows this machine, not its network
        ("http://localhost:{port}/push/a", True, ["10.0.0.8"]),
    ],
)
def test_a_device_whose_address_is_not_on_the_internet_is_not_posted_to_but_removed(
    push_service, settings, names, monkeypatch, alice, bob, endpoint, local, addresses
):
    monkeypatch.setattr(webpush, "TIMEOUT", (0.5, 0.5))  # the old code tried, and waited
    if addresses:
        names[urlsplit(endpoint).hostname] = addresses
    port = push_service.url.rsplit(":", 1)[1]
    device = stored_device(alice, endpoint.format(port=port))
    push_service.devices[device.endpoint] = device
    settings.PUSH_LOCAL_ENDPOINTS = local
    match = make_match(alice, bob)
    a_round(match, alice, bob)
    (message,) = PushMessage.objects.all()
    refused = counted("move", "refused")

    assert webpush.send_many([message.pk]) == 0
    assert push_service.tried(device) == 0
    assert not PushSubscription.objects.exists()
    assert not PushMessage.objects.exists()
    assert counted("move", "refused") - refused == 1


@pytest.mark.parametrize(
    "address, local, allowed",
    [
        ("142.250.74.10", False, True),
        ("2a00:1450:4001:82b::200a", False, True),
        ("64:ff9b::8efa:4a0a", False, True),  # 142.250.74.10 through NAT64
        ("127.0.0.1", True, True),
        ("::1", True, True),
        ("127.0.0.1", False, False),
        ("::1", False, False),
        ("10.0.0.7", True, False),
        ("172.16.0.1", False, False),
        ("192.168.1.1", False, False),
        ("100.64.0.1", False, False),
        ("169.254.169.254", False, False),
        ("0.0.0.0", True, False),
        ("224.0.0.1", False, False),
        ("255.255.255.255", False, False),
        ("240.0.0.1", False, False),
        ("192.0.2.1", False, False),
        ("::", False, False),
        ("fe80::1", False, False),
        ("fc00::1", False, False),
        ("fec0::1", False, False),
        ("ff02::1", False, False),
        ("2001:db8::1", False, False),
        ("::ffff:10.0.0.7", False, False),
        ("::ffff:127.0.0.1", False, False),
        ("2002:a00:7::1", False, False),  # 6to4 of 10.0.0.7
        ("64:ff9b::a00:7", False, False),  # NAT64 of 10.0.0.7
    ],
)
def test_the_addresses_a_push_may_go_to(settings, address, local, allowed):
    settings.PUSH_LOCAL_ENDPOINTS = local
    assert webpush.public(ipaddress.ip_address(address)) is allowed


@pytest.mark.django_db
def test_the_push_goes_to_the_address_checked_and_the_name_is_not_asked_again(
    push_service, monkeypatch, alice, bob
):
    """A name that resolves to another address the second time (DNS rebinding) gets the
    push at the address that was checked, with its own name in Host and in the VAPID
    audience."""
    asked = []
    real = socket.getaddrinfo

    def resolve(host, port, *args, **kwargs):
        if host == "localhost":
            asked.append(host)
            address = "127.0.0.1" if len(asked) == 1 else "127.0.0.2"  # nobody listens there
            return real(address, port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    match = make_match(alice, bob)
    device = push_service.device(host="localhost")
    push_devices.subscribe(alice, device.json(), CHROME_ON_ANDROID)
    a_round(match, alice, bob)

    assert webpush.send_many(list(PushMessage.objects.values_list("pk", flat=True))) == 1
    assert push_service.pushes(device) == [your_move(match)]
    assert asked == ["localhost"]


@pytest.mark.django_db
@pytest.mark.parametrize("certified, sent", [("push.test", 1), ("elsewhere.test", 0)])
def test_over_https_the_push_goes_to_the_address_checked_for_the_name_it_is_certified_for(
    vapid, settings, names, tmp_path, monkeypatch, alice, bob, certified, sent
):
    """The push service of a name the operator added, over https at the address its name
    resolved to: the connection asks for the name (SNI), and the certificate must be the
    name's, not the address's."""
    tls, authority = certificate(certified, tmp_path)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(authority))  # requests trusts it
    service = PushService(vapid, tls=tls)
    try:
        names["push.test"] = ["127.0.0.1"]  # this machine: PUSH_LOCAL_ENDPOINTS is on (vapid)
        settings.PUSH_SERVICES = [*settings.PUSH_SERVICES, "push.test"]
        device = service.device(host="push.test")
        push_devices.subscribe(alice, device.json(), CHROME_ON_ANDROID)
        match = make_match(alice, bob)
        a_round(match, alice, bob)
        (message,) = PushMessage.objects.all()

        assert webpush.send_many([message.pk]) == sent
        assert service.pushes(device) == [your_move(match)] * sent
        assert service.names == ["push.test"]
        assert service.problems == []
        message.refresh_from_db()
        assert (message.send_at is None) == bool(sent)  # else tried again later
    finally:
        service.close()
        webpush.reachable_again()
