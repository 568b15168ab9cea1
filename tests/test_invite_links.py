"""Invitation links: made with a match or a challenge, shown to its creator, opened by
anybody (signed in or a visitor, who plays as a guest), a seat taken only by a POST, and
no longer working once the seats are full, the match has started or is called off."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import InviteLink, Match, Profile, Seat
from games.registry import puzzle_game
from games.services import MoveRefused
from games.services.features import blocks, guests, links, puzzles
from games.services.match import lobby
from tests.factories import make_puzzles

pytestmark = pytest.mark.django_db


def linked_match(creator, *, players=2, invite=(), open=False, rated=True) -> Match:
    return services.create_match(
        creator,
        players=players,
        time_control="1d",
        rated=rated,
        options={"pace": "rounds"},
        invite=list(invite),
        open=open,
        link=True,
    )


def link_of(match) -> str:
    return reverse("invitation", args=[InviteLink.objects.get(match=match).token])


def test_a_match_with_a_link_needs_no_invitation_nor_open_seat(alice):
    match = linked_match(alice, players=3)
    link = InviteLink.objects.get(match=match)
    assert len(link.token) >= 32 and match.open is False and match.status == "waiting"
    other = linked_match(alice)
    assert InviteLink.objects.get(match=other).token != link.token
    with pytest.raises(MoveRefused, match="Invite a player for every seat"):
        services.create_match(alice, players=2, time_control="1d", rated=True, open=False)
    assert Match.objects.count() == 2


def test_only_the_creator_is_shown_the_link_while_seats_are_free(client, alice, bob, carol):
    match = linked_match(alice, players=3)
    url = "http://testserver" + link_of(match)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert f'value="{url}"' in page and "data-copy=" in page and "Invitation link" in page
    assert links.token_for(match, bob) is None
    client.force_login(bob)
    client.post(link_of(match))
    assert url not in client.get(match.get_absolute_url()).text
    client.force_login(alice)
    assert url in client.get(match.get_absolute_url()).text
    plain = services.create_match(alice, players=2, time_control="1d", rated=True, open=True)
    assert "data-invite-link" not in client.get(plain.get_absolute_url()).text


def test_opening_the_link_shows_the_invitation_and_takes_no_seat(client, alice, bob):
    match = linked_match(alice)
    client.force_login(bob)
    response = client.get(link_of(match))
    assert response.status_code == 200
    assert "alice invites you to a 2-player NMBR 9 match." in response.text
    assert "data-join-by-link" in response.text and "rated" in response.text
    assert response.headers["Cache-Control"].startswith("max-age=0")
    assert list(match.seats.values_list("player__username", flat=True)) == ["alice"]


def test_the_link_takes_a_seat_by_a_post_and_stops_working_once_the_match_starts(
    client, alice, bob, carol
):
    match = linked_match(alice)
    link = link_of(match)
    client.force_login(bob)
    response = client.post(link)
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.rated
    assert Seat.objects.get(match=match, player=bob).state == Seat.State.PLAYING
    assert client.get(link).url == match.get_absolute_url()  # a seated player goes to it
    client.force_login(carol)
    for response in (client.get(link), client.post(link)):
        assert response.status_code == 410
        assert "The match has started: this invitation no longer works." in response.text
        assert "data-join-by-link" not in response.text
    assert match.seats.count() == 2


def test_the_link_stops_working_when_every_seat_is_held(client, alice, bob, carol):
    dave = User.objects.create_user("dave", "dave@example.com", "a-Long-pa55word")
    match = linked_match(alice, players=3, invite=["carol"])
    client.force_login(bob)
    client.post(link_of(match))
    assert Match.objects.get(pk=match.pk).status == Match.Status.WAITING  # carol to answer
    client.force_login(dave)
    response = client.post(link_of(match))
    assert response.status_code == 410 and "Every seat of the match is taken" in response.text
    assert not match.seats.filter(player=dave).exists()
    with pytest.raises(MoveRefused, match="no free seat"):
        links.join(InviteLink.objects.get(match=match).token, dave)


def test_the_link_stops_working_when_the_creator_cancels(client, alice, bob):
    match = linked_match(alice, players=3)
    services.cancel(match.pk, alice)
    client.force_login(bob)
    response = client.get(link_of(match))
    assert response.status_code == 410 and "The match was called off" in response.text
    assert client.post(link_of(match)).status_code == 410
    match.refresh_from_db()
    assert links.token_for(match, alice) is None


def test_a_link_there_is_not_is_answered_with_a_word(client, bob):
    client.force_login(bob)
    response = client.get(reverse("invitation", args=["no-such-token-" + "x" * 20]))
    assert response.status_code == 404
    assert "There is no such invitation: check that the whole link was copied." in response.text
    assert client.get("/join/bad%20token/").status_code == 404


def test_a_visitor_takes_the_seat_as_a_guest_and_the_match_is_casual(alice):
    match = linked_match(alice, rated=True)
    visitor = Client()
    page = visitor.get(link_of(match)).text
    assert "You play as a guest, and a match with a guest is casual" in page
    assert f'href="{reverse("login")}?next=' in page
    assert not User.objects.filter(profile__guest=True).exists()  # a GET makes no guest
    response = visitor.post(link_of(match))
    assert response.status_code == 302
    guest = User.objects.get(profile__guest=True)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.rated is False
    assert match.seats.filter(player=guest).exists()
    assert visitor.get(match.get_absolute_url()).status_code == 200


def test_a_guest_takes_no_open_seat_but_by_a_link(alice):
    seek = services.create_match(alice, players=2, time_control="1d", rated=False, open=True)
    guest = Client()
    guest.post(reverse("new_solo"))
    player = User.objects.get(profile__guest=True)
    with pytest.raises(MoveRefused, match="Create an account"):
        lobby.join(seek.pk, player)
    assert not seek.seats.filter(player=player).exists()


def test_a_player_blocked_by_a_seated_player_cannot_use_the_link(client, alice, bob, carol):
    match = linked_match(alice, players=3)
    client.force_login(carol)
    client.post(link_of(match))
    blocks.block(carol, bob)  # carol is seated: bob is kept out, whoever made the link
    client.force_login(bob)
    page = client.get(link_of(match))
    assert page.status_code == 200 and "You cannot join this match." in page.text
    assert "data-join-by-link" not in page.text and "blocked" not in page.text
    response = client.post(link_of(match))
    assert response.status_code == 400 and "You cannot join this match." in response.text
    assert not match.seats.filter(player=bob).exists()
    with pytest.raises(MoveRefused, match="You cannot join this match."):
        links.join(InviteLink.objects.get(match=match).token, bob)


def test_the_creator_blocking_a_player_keeps_them_off_the_link(client, alice, bob):
    blocks.block(alice, bob)
    match = linked_match(alice)
    client.force_login(bob)
    assert client.post(link_of(match)).status_code == 400
    assert match.seats.count() == 1


def test_the_link_is_made_from_the_new_match_form(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_match")).text
    assert 'name="link"' in page and "Make an invitation link" in page
    assert 'data-player-search="/players/"' in page and "js/players.js" in page
    form = {"players": "2", "pace": "rounds", "time_control": "1d", "removed": "0", "link": "on"}
    response = client.post(reverse("new_match"), form)
    match = Match.objects.get()
    assert response.url == match.get_absolute_url() and not match.open
    assert InviteLink.objects.filter(match=match).exists()
    assert "data-invite-link" in client.get(match.get_absolute_url()).text


def test_a_challenge_by_link_follows_the_challenge_rules(client, alice, bob, carol):
    make_puzzles(811, 812, 813)
    client.force_login(alice)
    form = {"players": "3", "time_control": "1d", "rated": "on", "link": "on"}
    response = client.post(reverse("new_challenge"), form)
    offer = alice.challenge_offers.get()
    assert offer.link and response.url == reverse("challenge_offer", args=[offer.pk])
    assert "with an invitation link" in client.get(response.url).text
    match = puzzles.pick_challenge(offer.pk, alice, offer.first_id)
    link = link_of(match)
    lobby.start_solo(carol, kind=Match.Kind.PUZZLE, puzzle=match.puzzle)  # carol knows it
    client.force_login(carol)
    page = client.get(link).text
    assert "alice challenges you to a 3-player puzzle challenge." in page
    assert "You have played this puzzle before" in page and "data-join-by-link" not in page
    assert client.post(link).status_code == 400
    client.force_login(bob)
    assert client.post(link).status_code == 302
    assert match.seats.filter(player=bob).exists() and match.game == puzzle_game()


def test_the_invitation_in_german(client, alice, bob):
    match = linked_match(alice)
    client.force_login(bob)
    page = client.get(link_of(match), HTTP_ACCEPT_LANGUAGE="de").text
    assert "alice lädt dich zu einer Partie NMBR 9 mit 2 Spielern ein." in page
    assert "Der Partie beitreten" in page
    services.cancel(match.pk, alice)
    gone = client.get(link_of(match), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Die Partie wurde abgesagt: Diese Einladung gilt nicht mehr." in gone
    client.force_login(alice)
    form = client.get(reverse("new_match"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Einladungslink erstellen" in form


def test_an_idle_guest_who_played_by_a_link_keeps_that_seat_for_the_others(alice, bob):
    match = linked_match(alice, rated=False)
    visitor = Client()
    visitor.post(reverse("new_solo"))  # a game of the guest's own
    visitor.post(link_of(match))
    guest = User.objects.get(profile__guest=True)
    alone = Match.objects.get(created_by=guest)
    services.resign(match.pk, guest)
    long_ago = timezone.now() - guests.IDLE - timedelta(minutes=1)
    Profile.objects.filter(player=guest).update(last_seen=long_ago)
    assert guests.idle() == [guest.pk]
    assert guests.remove_idle([guest.pk]) == 1
    guest.refresh_from_db()
    assert not guest.is_active and guests.idle() == []  # kept, never found idle again
    assert match.seats.filter(player=guest).exists() and Match.objects.filter(pk=match.pk).exists()
    assert not Match.objects.filter(pk=alone.pk).exists()
    home = visitor.get(reverse("home"))
    assert home.status_code == 200 and guest.username not in home.text  # a visitor again
