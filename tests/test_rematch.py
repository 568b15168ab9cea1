"""The rematch offer at the end of a real-time match between people: every player accepts,
and a new match of the same players, game, pace and options starts at once, only one; the
pages follow the answers; nothing offered to correspondence matches, bots, after the offer's
ten minutes, nor to players who blocked one another or whose account is closed."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from games import services
from games.infra import events
from games.models import Match, Profile, Seat
from games.services.features import blocks, closing, rematch
from games.services.match import versions
from games.services.match.record import MoveRefused
from tests.factories import Channels, make_match, page_version, seat_of, together


def finished(*players, game="nmbr9", speed="30s", **extra) -> Match:
    """A real-time match of ``players`` that ended: all but the last resigned (and rated, as
    the worker does at once)."""
    match = services.start_realtime(list(players), game=game, speed=speed, **extra)
    for player in players[:-1]:
        services.resign(match.pk, player)
    services.rate_match(match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def test_when_every_player_accepts_the_rematch_starts_at_once(alice, bob, carol):
    match = finished(alice, bob, carol, game="nmbrs", speed="15s", options={"target": 100})
    assert rematch.accept(match.pk, alice) is None
    assert rematch.accept(match.pk, alice) is None  # again: nothing more
    assert rematch.accept(match.pk, bob) is None
    offer = rematch.offer(match, list(match.seats.all()), seat_of(match, carol))
    assert offer is not None and sorted(offer.accepted) == ["alice", "bob"]
    assert offer.players == 3 and not offer.mine and offer.rematch is None
    started = rematch.accept(match.pk, carol)
    assert started is not None
    started.refresh_from_db()
    assert started.rematch_of == match and started.status == Match.Status.ACTIVE
    assert {s.player_id for s in started.seats.all()} == {alice.pk, bob.pk, carol.pk}
    assert started.game == "nmbrs" and services.speed_of(started) == "15s"
    assert started.options == match.options and started.options["target"] == 100
    assert started.rated and started.realtime
    # Once it exists, every answer leads to it and nothing else starts.
    assert rematch.accept(match.pk, alice) == started
    assert rematch.withdraw(match.pk, bob) == started
    assert Match.objects.filter(rematch_of=match).count() == 1
    offer = rematch.offer(match, list(match.seats.all()), seat_of(match, alice))
    assert offer is not None and offer.rematch == started and not offer.waiting


def test_a_casual_match_has_a_casual_rematch(alice, bob):
    match = finished(alice, bob, rated=False)
    rematch.accept(match.pk, bob)
    started = rematch.accept(match.pk, alice)
    assert started is not None and not started.rated
    assert started.options == match.options


def test_a_player_may_withdraw_before_the_others_accept(alice, bob):
    match = finished(alice, bob)
    rematch.accept(match.pk, alice)
    assert seat_of(match, alice).prefs == {"rematch": True}
    assert rematch.withdraw(match.pk, alice) is None
    assert seat_of(match, alice).prefs == {}
    assert rematch.withdraw(match.pk, alice) is None  # again: nothing
    assert rematch.accept(match.pk, bob) is None
    assert not Match.objects.filter(rematch_of=match).exists()


def test_a_decline_ends_the_offer_for_every_player(alice, bob, carol):
    match = finished(alice, bob, carol, game="nmbrs", speed="15s")
    rematch.accept(match.pk, alice)
    rematch.accept(match.pk, carol)
    assert rematch.decline(match.pk, carol) is None  # carol changes her mind: for all
    assert seat_of(match, carol).prefs == {"rematch_declined": True}
    assert seat_of(match, alice).prefs == {"rematch": True}
    seats = list(match.seats.select_related("player"))
    for player, mine in ((alice, False), (bob, False), (carol, True)):
        offer = rematch.offer(match, seats, seat_of(match, player))
        assert offer is not None and offer.declined == "carol"
        assert offer.declined_mine == mine and not offer.waiting and offer.rematch is None
    with pytest.raises(MoveRefused, match="carol declined the rematch."):
        rematch.accept(match.pk, bob)
    # Declining again, or after another player did, changes nothing.
    assert rematch.decline(match.pk, carol) is None
    assert rematch.decline(match.pk, bob) is None
    assert seat_of(match, bob).prefs == {}
    assert not Match.objects.filter(rematch_of=match).exists()


def test_a_decline_after_the_rematch_started_leads_to_it(alice, bob):
    match = finished(alice, bob, game="nmbr9")
    rematch.accept(match.pk, alice)
    started = rematch.accept(match.pk, bob)
    assert started is not None
    assert rematch.decline(match.pk, bob) == started
    assert seat_of(match, bob).prefs == {"rematch": True}  # nothing changed


def test_no_decline_once_the_offer_is_over_or_of_another_s_match(alice, bob, carol):
    match = finished(alice, bob)
    with pytest.raises(Seat.DoesNotExist):
        rematch.decline(match.pk, carol)
    Match.objects.filter(pk=match.pk).update(finished=timezone.now() - rematch.WINDOW)
    with pytest.raises(MoveRefused, match="10 minutes"):
        rematch.decline(match.pk, bob)
    assert seat_of(match, bob).prefs == {}


@pytest.mark.django_db(transaction=True)
def test_a_decline_tells_the_offerer_s_page(client, alice, bob):
    match = finished(alice, bob)
    rematch.accept(match.pk, alice)
    theirs = events.channel(match.pk, str(seat_of(match, alice).index))
    heard = Channels(theirs)
    try:
        before = page_version(client, match, alice)
        rematch.decline(match.pk, bob)
        got = heard.read()[theirs]
    finally:
        heard.close()
    after = page_version(client, match, alice)
    assert got == [after] and after != before


@pytest.mark.django_db(transaction=True)
def test_simultaneous_last_accepts_start_one_rematch(alice, bob):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's concurrent transactions")
    for first_accepted in (False, True):
        match = finished(alice, bob)
        if first_accepted:  # bob accepts twice at once, alice accepted before
            rematch.accept(match.pk, alice)
            calls = [lambda m=match: rematch.accept(m.pk, bob)] * 2
        else:  # both accept at once
            calls = [lambda m=match: rematch.accept(m.pk, alice)]
            calls.append(lambda m=match: rematch.accept(m.pk, bob))
        results = together(*calls)
        assert not [r for r in results if isinstance(r, Exception)], results
        started = Match.objects.get(rematch_of=match)
        assert [r for r in results if r is not None] in ([started], [started, started])


@pytest.mark.parametrize("case", ["correspondence", "bot", "late", "blocked", "closed", "running"])
def test_no_rematch_is_offered(case, alice, bob):
    if case == "correspondence":
        match = make_match(alice, bob)
        services.resign(match.pk, alice)
    elif case == "bot":
        match = services.start_against_bot(alice, "easy", game="nmbr9")
        services.resign(match.pk, alice)
    elif case == "running":
        match = services.start_realtime([alice, bob], game="nmbr9", speed="15s")
    else:
        match = finished(alice, bob)
    if case == "late":
        Match.objects.filter(pk=match.pk).update(
            finished=timezone.now() - rematch.WINDOW - timedelta(seconds=1)
        )
    elif case == "blocked":
        blocks.block(bob, alice)
    elif case == "closed":
        closing.close(bob)
    match.refresh_from_db()
    seats = list(match.seats.select_related("player"))
    assert rematch.offer(match, seats, seat_of(match, alice)) is None
    with pytest.raises(MoveRefused) as refused:
        rematch.accept(match.pk, alice)
    if case == "late":
        assert "10 minutes" in str(refused.value)
    assert not Match.objects.filter(rematch_of=match).exists()
    assert seat_of(match, alice).prefs == {}


def test_the_players_pages_follow_the_answers_for_the_offer_s_minutes(alice, bob):
    match = finished(alice, bob)
    mv = services.view_match(match.pk, alice)
    assert versions.channel_for(mv) == events.channel(match.pk, str(mv.seat.index))
    spectator = services.view_match(match.pk, AnonymousUser())
    assert versions.channel_for(spectator) is None
    Match.objects.filter(pk=match.pk).update(finished=timezone.now() - rematch.WINDOW)
    assert versions.channel_for(services.view_match(match.pk, alice)) is None
    correspondence = make_match(alice, bob)
    services.resign(correspondence.pk, alice)
    assert versions.channel_for(services.view_match(correspondence.pk, alice)) is None


@pytest.mark.django_db(transaction=True)
def test_an_answer_tells_every_player_s_page(client, alice, bob):
    match = finished(alice, bob)
    theirs = events.channel(match.pk, str(seat_of(match, bob).index))
    heard = Channels(theirs)
    try:
        before = page_version(client, match, bob)
        rematch.accept(match.pk, alice)
        got = heard.read()[theirs]
    finally:
        heard.close()
    after = page_version(client, match, bob)
    assert got == [after] and after != before


def test_the_page_offers_accepts_waits_and_leads_to_the_rematch(client, alice, bob):
    match = finished(alice, bob)
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "data-rematch-accept" in page and "data-polling" in page
    accept = reverse("rematch_accept", args=[match.pk])
    response = client.post(accept)
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    page = client.get(match.get_absolute_url()).content.decode()
    assert "bob wants a rematch (1 of 2)" in page
    assert "Waiting for the others…" in page and "data-rematch-withdraw" in page
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "bob wants a rematch (1 of 2)" in page and "data-rematch-accept" in page
    response = client.post(accept)
    started = Match.objects.get(rematch_of=match)
    assert response.status_code == 302 and response.url == started.get_absolute_url()
    page = client.get(match.get_absolute_url()).content.decode()
    assert f"go to Match #{started.pk}" in page and "data-go" in page
    assert "data-polling" not in page  # nothing more to wait for
    # Cancelling now only leads to the rematch.
    response = client.post(reverse("rematch_withdraw", args=[match.pk]))
    assert response.url == started.get_absolute_url()


def test_the_page_declines_and_says_so_to_every_player(client, alice, bob, carol):
    match = finished(alice, bob)
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "data-rematch-decline" not in page  # nothing offered to decline yet
    rematch.accept(match.pk, alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "data-rematch-decline" in page and "data-rematch-accept" in page
    decline = reverse("rematch_decline", args=[match.pk])
    assert client.get(decline).status_code == 405
    response = client.post(decline)
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    page = client.get(match.get_absolute_url()).content.decode()
    assert "You declined the rematch." in page
    assert "data-rematch-accept" not in page and "data-polling" not in page
    assert client.post(decline).status_code == 302  # again: nothing more
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "bob declined the rematch." in page
    assert "data-rematch-withdraw" not in page and "data-polling" not in page
    response = client.post(reverse("rematch_accept", args=[match.pk]))
    assert response.status_code == 400
    assert "bob declined the rematch." in response.content.decode()
    # A decline from a page left open past the offer's end: said, not a failure.
    Match.objects.filter(pk=match.pk).update(finished=timezone.now() - timedelta(hours=1))
    response = client.post(decline)
    assert response.status_code == 400
    assert "The offer of a rematch has ended" in response.content.decode()
    client.force_login(carol)  # not a player of the match
    assert client.post(decline).status_code == 404
    assert client.post(reverse("rematch_decline", args=[999_999])).status_code == 404


def test_a_decline_in_german(client, alice, bob):
    for player in (alice, bob):
        Profile.objects.update_or_create(player=player, defaults={"language": "de"})
    match = finished(alice, bob)
    rematch.accept(match.pk, alice)
    client.force_login(bob)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Ablehnen</button>" in page
    client.post(reverse("rematch_decline", args=[match.pk]))
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Du hast die Revanche abgelehnt." in page
    client.force_login(alice)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "bob hat die Revanche abgelehnt." in page


def test_the_offer_in_german(client, alice, bob):
    Profile.objects.update_or_create(player=bob, defaults={"language": "de"})
    match = finished(alice, bob)
    rematch.accept(match.pk, alice)
    client.force_login(bob)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "alice möchte eine Revanche (1 von 2)" in page and "Revanche</button>" in page
    client.post(reverse("rematch_accept", args=[match.pk]))
    started = Match.objects.get(rematch_of=match)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert f"Partie #{started.pk}" in page


def test_bad_requests_are_refused_with_a_message(client, alice, bob, carol):
    match = finished(alice, bob)
    accept = reverse("rematch_accept", args=[match.pk])
    assert client.post(accept).status_code == 302  # to log in
    client.force_login(carol)  # not a player of the match
    assert client.post(accept).status_code == 404
    assert client.post(reverse("rematch_accept", args=[999_999])).status_code == 404
    client.force_login(alice)
    assert client.get(accept).status_code == 405
    Match.objects.filter(pk=match.pk).update(finished=timezone.now() - timedelta(hours=1))
    response = client.post(accept)
    assert response.status_code == 400
    assert "The offer of a rematch has ended" in response.content.decode()
    running = services.start_realtime([alice, bob], game="nmbr9", speed="15s")
    response = client.post(reverse("rematch_accept", args=[running.pk]))
    assert response.status_code == 400
    assert "No rematch is offered for this match." in response.content.decode()
    client.force_login(alice)
    response = client.post(accept, HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 400


def test_a_real_time_match_says_its_pace_in_seconds_and_offers_no_correspondence_copy(
    client, alice, bob
):
    match = finished(alice, bob, speed="15s")
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "15 seconds per move" in page
    assert "data-same-match" not in page  # the rematch, not a match of a day a move
    # One click joins the same pool again: the same game, speed and number of players.
    form = re.search(r'<form method="post" action="/play/"[^>]*data-new-opponent>.*?</form>', page)
    assert form is not None
    for name, value in (("game", "nmbr9"), ("speed", "15s"), ("players", "2")):
        assert f'name="{name}" value="{value}"' in form[0]
    response = client.post("/play/", {"game": "nmbr9", "speed": "15s", "players": "2"})
    assert response.status_code == 302 and response.url == "/play/wait/"
    client.cookies["django_language"] = "de"
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "15 Sekunden" in page
