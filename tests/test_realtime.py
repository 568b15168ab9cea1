"""Real-time matches: paces of seconds, deadlines enforced by the clock within seconds,
nothing sent to players who sit at the match anyway, a rating of their own."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.infra import clock, queue
from games.models import Match, Notification, Rating, Seat
from games.services.match.record import MoveRefused
from nmbr9site import processes
from nmbr9site.celery import app
from tests.factories import guest_of, make_due, play, seat_of, wait_for


def realtime(*players, game="nmbr9", speed="15s", **extra) -> Match:
    match = services.start_realtime(list(players), game=game, speed=speed, **extra)
    match.refresh_from_db()
    return match


@pytest.mark.django_db
def test_a_realtime_match_starts_at_once_with_a_deadline_of_its_pace(alice, bob):
    before = timezone.now()
    match = realtime(alice, bob, speed="30s")
    assert match.status == Match.Status.ACTIVE and match.realtime and match.rated
    assert services.speed_of(match) == "30s"
    assert match.options["pace"] == "rounds"  # everybody places the same card at once
    seats = list(match.seats.all())
    assert {s.player_id for s in seats} == {alice.pk, bob.pk}
    for seat in seats:
        assert before + timedelta(seconds=30) <= seat.deadline
        assert seat.deadline <= timezone.now() + timedelta(seconds=30)
        assert seat.remind_at is None  # no reminder: the player is at the match
    # Nobody is told "your move" by a notification, a push or an e-mail.
    assert not Notification.objects.filter(match=match).exists()
    assert not Seat.objects.filter(match=match, mail_at__isnull=False).exists()


@pytest.mark.django_db
def test_a_correspondence_match_is_not_realtime(alice, bob):
    match = services.create_match(
        alice, players=2, time_control="1h", rated=True, invite=[bob.username]
    )
    assert not match.realtime and services.speed_of(match) is None


@pytest.mark.django_db
def test_bad_speeds_and_player_counts_are_refused(alice, bob):
    with pytest.raises(MoveRefused):
        services.start_realtime([alice, bob], game="nmbr9", speed="1h")
    with pytest.raises(MoveRefused):
        services.start_realtime([alice], game="nmbr9", speed="15s")
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_a_guest_plays_casual(alice, client):
    client.post(reverse("new_solo"), {"game": "nmbr9"})  # a visitor becomes a guest
    match = realtime(alice, guest_of(client))
    assert not match.rated


@pytest.mark.django_db
def test_an_offer_of_a_discard_takes_at_most_a_move_s_time(alice, bob):
    match = realtime(alice, bob, game="nmbrs")
    mover = Seat.objects.get(match=match, deadline__isnull=False)
    services.play(match.pk, mover.player, "pass", 0)
    offered = Seat.objects.get(match=match, deadline__isnull=False)
    assert offered.pk != mover.pk
    left = offered.deadline - timezone.now()
    assert timedelta(seconds=10) < left <= timedelta(seconds=15)


@pytest.mark.django_db
def test_no_extension_in_real_time(alice, bob):
    match = realtime(alice, bob)
    with pytest.raises(MoveRefused, match="no extensions"):
        services.extend(match.pk, alice)
    assert seat_of(match, alice).extensions_left == 2


@pytest.mark.django_db
def test_two_missed_moves_in_real_time_end_a_match_of_two_and_rate_it_live(alice, bob):
    match = realtime(alice, bob)
    for _ in range(2):
        play(match, bob)  # on time
        make_due(seat_of(match, alice))
        assert services.expire_many([seat_of(match, alice).pk]) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert seat_of(match, alice).state == Seat.State.DROPPED
    # No notification about the missed moves nor the result: the page says it, live.
    assert not Notification.objects.filter(match=match).exists()
    assert services.rate_match(match.pk)
    assert set(Rating.objects.values_list("pool", flat=True)) == {Rating.Pool.LIVE}


@pytest.mark.django_db
def test_a_finished_rated_page_follows_its_ratings_until_they_come(client, alice, bob):
    match = realtime(alice, bob)
    for _ in range(2):
        play(match, bob)
        make_due(seat_of(match, alice))
        services.expire_many([seat_of(match, alice).pk])
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    assert "<th>Rating</th>" in page and page.count("pending…") == 2
    # its own look, which a page with a stream makes too (its stream says nothing of ratings)
    (token,) = re.findall(r'\?poll=([\w-]+)" hx-trigger="every 3s"[^>]*data-rating-poll', page)
    assert token.endswith("-rating")
    poll = match.get_absolute_url() + "?poll=" + token
    assert client.get(poll, HTTP_HX_REQUEST="true").status_code == 204  # nothing new yet
    assert services.rate_match(match.pk)
    shown = client.get(poll, HTTP_HX_REQUEST="true")
    assert shown.status_code == 200 and shown.text.count("data-rating-change") == 2
    assert "pending…" not in shown.text
    assert "data-rating-poll" not in shown.text
    (token,) = re.findall(r'\?poll=([\w-]+)" hx-trigger', shown.text)  # the rematch's answers
    assert not token.endswith("-rating")
    assert client.get(poll, HTTP_HX_REQUEST="true").status_code == 200  # the old token: news


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["nmbr9", "nmbrs"])
def test_a_match_everybody_left_is_abandoned_unrated_with_no_winner(game, alice, bob, carol):
    match = realtime(alice, bob, carol, game=game)
    for _ in range(200):  # nobody moves: every decision's time runs out
        due = list(Seat.objects.filter(match=match, deadline__isnull=False))
        if not due:
            break
        for seat in due:
            make_due(seat)
        services.expire_many([seat.pk for seat in due])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and not match.rated
    seats = list(match.seats.all())
    assert {seat.state for seat in seats} == {Seat.State.DROPPED}
    assert {seat.rank for seat in seats} == {1}  # nobody beat anybody
    assert not services.rate_match(match.pk)


@pytest.mark.django_db
def test_a_player_who_stays_wins_against_one_who_left(alice, bob):
    match = realtime(alice, bob)
    for _ in range(2):
        play(match, bob)
        make_due(seat_of(match, alice))
        services.expire_many([seat_of(match, alice).pk])
    match.refresh_from_db()
    assert match.rated and seat_of(match, bob).rank == 1 and seat_of(match, alice).rank == 2


class Sent:
    def __init__(self):
        self.batches = []

    def __call__(self, task, batch):
        self.batches.append(list(batch))
        return True


@pytest.mark.django_db
def test_the_clock_hands_on_due_seats_once_and_again_if_still_due_after_a_while(alice, bob):
    match = realtime(alice, bob)
    seats = list(match.seats.all())
    for seat in seats:
        make_due(seat)
    sent = Sent()
    ticker = clock.Clock(send=sent)
    assert ticker.tick(moment=100.0) == 2
    assert ticker.tick(moment=100.25) == 0  # sent a moment ago
    assert ticker.tick(moment=100.0 + clock.RESEND) == 2  # still due: lost or late
    services.expire_many([seats[0].pk])
    assert ticker.tick(moment=110.0) == 1
    assert sorted(sum(sent.batches, [])) == sorted([s.pk for s in seats] * 2 + [seats[1].pk])


@pytest.mark.django_db
def test_the_clock_sends_batches_and_stops_when_the_broker_refuses(alice, bob):
    match = realtime(alice, bob)
    Seat.objects.filter(match=match).update(deadline=timezone.now() - timedelta(seconds=1))
    refused = []
    ticker = clock.Clock(send=lambda task, batch: refused.append(batch) and False)
    assert ticker.tick() == 0 and len(refused) == 1
    assert ticker.tick() == 0 and len(refused) == 2  # tried again at the next look


@pytest.mark.django_db
def test_the_clock_s_tasks_go_to_the_fast_queue(alice, bob, celery_queue):
    fast = queue.queue_names()[2]
    with app.connection_for_write() as connection:
        redis = connection.default_channel.client
        redis.delete(fast)
        match = realtime(alice, bob)
        for seat in match.seats.all():
            make_due(seat)
        assert clock.Clock().tick() == 2
        assert redis.llen(fast) == 1  # one batch
        redis.delete(fast)


def test_the_clock_process_and_the_fast_worker_expire_a_due_seat_within_seconds(
    transactional_db, alice, bob, celery_queue, tmp_path
):
    fast = queue.queue_names()[2]
    worker = processes.celery(
        "worker", queue=celery_queue, queues=[fast], log=tmp_path / "fast.log"
    )
    ticking = processes.clock(queue=celery_queue, log=tmp_path / "clock.log")
    try:
        match = realtime(alice, bob)
        seat = seat_of(match, alice)
        Seat.objects.filter(pk=seat.pk).update(deadline=timezone.now() + timedelta(seconds=1))
        wait_for(lambda: Seat.objects.filter(pk=seat.pk, strikes=1).exists(), timeout=60)
    finally:
        for process in (ticking, worker):
            processes.stop(process)


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["nmbr9", "nmbrs"])
def test_a_player_waiting_for_another_sees_their_time_count_down(client, game, alice, bob):
    match = realtime(alice, bob, game=game)
    mover = Seat.objects.filter(match=match).order_by("index").first()
    waiting = bob if mover.player_id == alice.pk else alice
    if game == "nmbr9":  # both owe the round's card: one places it and waits for the other
        waiting = alice
        play(match, alice)
    client.force_login(waiting)
    page = client.get(match.get_absolute_url()).content.decode()
    waited = re.search(r"data-waiting.*?</div>", page, re.S)
    assert waited is not None and "Time left:" in waited[0]
    assert "data-countdown" in waited[0] and "data-now" in waited[0]


@pytest.mark.django_db
def test_a_profile_names_the_real_time_rating_as_its_leaderboard_does(client, alice, bob):
    match = realtime(alice, bob)
    services.resign(match.pk, bob)
    assert services.rate_match(match.pk)
    page = client.get("/@/alice/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Wertung (Echtzeit-Partien)" in page
    # the matches it counts are said beside it ("Rated matches" counts those by post alone)
    english = client.get("/@/alice/").content.decode()
    assert re.search(r'data-stat="rating-nmbr9-live">\d+\? · 1 rated game</dd>', english)
    assert 'data-stat="rated">0<' in english
    assert "1 gewertete Partie</dd>" in page


def test_every_real_time_pace_is_said_in_seconds():
    from games.templatetags.games_extras import duration

    said = [duration(services.SPEEDS[speed]) for speed in ("15s", "30s", "60s")]
    assert said == ["15 seconds", "30 seconds", "60 seconds"]
