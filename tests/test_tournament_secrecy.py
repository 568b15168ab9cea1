"""A tournament game's order stays secret, through every reader: an entrant sees nobody
else's game on it (page, replay, polls, chat, compare page, the live stream's view) before
finishing their own, and nobody else does before the game has closed."""

from datetime import timedelta

import pytest
from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from games.infra import streams
from games.models import Match, Puzzle, Tournament
from games.services.features import tournaments
from games.services.match import visibility
from tests.factories import finish, hidden

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def running(alice, bob) -> Tournament:
    tournament = tournaments.create(
        alice,
        name="Secret cup",
        game="nmbr9",
        games=2,
        window="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(tournament.pk, bob)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    tournaments.start(tournament.pk)
    return tournament


def readers(match: Match) -> list[str]:
    return [match.get_absolute_url(), reverse("replay", args=[match.pk])]


def assert_hidden_from(client, match: Match, tournament: Tournament, number: int) -> None:
    for url in readers(match):
        for extra in ({}, HTMX, {"HTTP_HX_REQUEST": "true", "QUERY_STRING": "poll=x"}):
            response = client.get(url, **extra)
            assert hidden(response), (url, response.status_code)
            assert 'data-number="' not in response.text
    response = client.get(reverse("tournament_compare", args=[tournament.pk, number]))
    assert hidden(response)
    assert 'data-number="' not in response.text
    assert f'data-compare="{number}"' not in client.get(tournament.get_absolute_url()).text


def test_an_entrant_sees_no_other_game_on_a_deal_before_finishing_their_own(client, alice, bob):
    tournament = running(alice, bob)
    alices = tournaments.play(tournament.pk, alice, 1)
    finish(alices, alice)
    client.force_login(bob)
    assert_hidden_from(client, alices, tournament, 1)  # not begun
    bobs = tournaments.play(tournament.pk, bob, 1)
    assert_hidden_from(client, alices, tournament, 1)  # begun, not finished
    for user in (bob, None):
        deal = Puzzle.objects.get(pk=alices.puzzle_id)
        assert visibility.secret_reason(user, deal)
    with pytest.raises(Http404):
        streams.channel_of(bob, alices.pk)
    assert client.get(reverse("chat", args=[alices.pk])).status_code in (403, 404)
    finish(bobs, bob)
    assert client.get(alices.get_absolute_url()).status_code == 200
    compare = client.get(reverse("tournament_compare", args=[tournament.pk, 1]))
    assert compare.status_code == 200
    assert 'data-display-of="alice"' in compare.text and 'data-display-of="bob"' in compare.text
    # Game 2 is another deal: still secret for both.
    alices_second = tournaments.play(tournament.pk, alice, 2)
    assert client.get(alices_second.get_absolute_url()).status_code == 404  # running: unseen
    finish(alices_second, alice)
    assert hidden(client.get(alices_second.get_absolute_url()))


def test_visitors_and_other_players_see_nothing_before_the_game_closes(client, alice, bob, carol):
    tournament = running(alice, bob)
    alices = tournaments.play(tournament.pk, alice, 1)
    finish(alices, alice)
    bobs = tournaments.play(tournament.pk, bob, 1)
    finish(bobs, bob)
    for user in (carol, None):
        client.logout()
        if user:
            client.force_login(user)
        assert_hidden_from(client, alices, tournament, 1)
    # Closed, with no game on it still running: anybody may look.
    Puzzle.objects.filter(tournament=tournament, number=1).update(
        closes=timezone.now() - timedelta(seconds=1)
    )
    client.force_login(carol)
    assert client.get(alices.get_absolute_url()).status_code == 200
    assert client.get(reverse("tournament_compare", args=[tournament.pk, 1])).status_code == 200
    client.logout()
    assert client.get(reverse("replay", args=[bobs.pk])).status_code == 200


def test_a_closed_game_stays_secret_while_a_game_on_it_is_still_being_played(
    client, alice, bob, carol
):
    tournament = running(alice, bob)
    alices = tournaments.play(tournament.pk, alice, 1)
    finish(alices, alice)
    tournaments.play(tournament.pk, bob, 1)  # begun, not finished
    Puzzle.objects.filter(tournament=tournament, number=1).update(
        closes=timezone.now() - timedelta(seconds=1)
    )
    for user in (bob, carol, None):
        client.logout()
        if user:
            client.force_login(user)
        assert hidden(client.get(alices.get_absolute_url()))
    tournaments.run_due()  # resigns bob's game: the deal is no secret any more
    client.force_login(bob)
    assert client.get(alices.get_absolute_url()).status_code == 200


def test_a_tournaments_deal_cannot_be_practised_or_shown_as_a_puzzle(client, alice, bob):
    tournament = running(alice, bob)
    deal = tournament.deals.get(number=1)
    client.force_login(alice)
    assert client.get(reverse("puzzle", args=[deal.pk])).status_code == 404
    assert client.post(reverse("play_puzzle", args=[deal.pk])).status_code == 404
    assert not Match.objects.filter(kind=Match.Kind.PUZZLE).exists()
