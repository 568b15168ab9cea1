"""Blocking, as the services keep it, and what it keeps away: invitations, challenges and
open seats (follows and invitation links: tests/test_follows.py, tests/test_invite_links.py)."""

import pytest
from django.urls import reverse

from games import services
from games.models import Block, ChallengeOffer, Match, Notification
from games.services.features import blocks, puzzles
from games.services.match.record import MoveRefused
from tests.factories import make_puzzles


def test_a_block_is_kept_once_and_undone(alice, bob, carol):
    blocks.block(alice, bob)
    blocks.block(alice, bob)
    assert Block.objects.count() == 1
    assert blocks.blocks(alice.pk, bob.pk) and not blocks.blocks(bob.pk, alice.pk)
    assert blocks.blocked_ids(alice) == {bob.pk}
    assert blocks.blocking_any(bob.pk, [alice.pk, carol.pk]) == {alice.pk}
    blocks.unblock(alice, bob)
    assert blocks.blocked_ids(alice) == set()


def test_nobody_blocks_themselves(alice):
    with pytest.raises(MoveRefused):
        blocks.block(alice, alice)
    assert not Block.objects.exists()


# ------------------------------------------------------------------ what a block keeps away


@pytest.fixture
def blocked_by_alice(alice, bob):
    """Alice has blocked Bob."""
    blocks.block(alice, bob)
    return bob


def test_a_blocked_player_cannot_invite_the_blocker_to_a_match(alice, blocked_by_alice, carol):
    with pytest.raises(MoveRefused, match="^alice cannot be invited.$"):
        services.create_match(
            blocked_by_alice, players=3, time_control="1d", rated=True, invite=["carol", "ALICE"]
        )
    assert not Match.objects.exists() and not Notification.objects.exists()
    # The blocker may invite whom they like.
    services.create_match(alice, players=2, time_control="1d", rated=True, invite=["bob"])


def test_a_blocked_player_cannot_challenge_the_blocker(alice, blocked_by_alice):
    make_puzzles(901, 902)
    with pytest.raises(MoveRefused, match="alice cannot be invited."):
        puzzles.offer_challenge(
            blocked_by_alice, invite=["alice"], players=2, open=False, rated=True, time_control="1d"
        )
    assert not ChallengeOffer.objects.exists()


def test_a_rematch_with_a_player_who_blocked_since_is_refused(alice, bob):
    make_puzzles(903, 904, 905, 906)
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    match = puzzles.pick_challenge(offer.pk, alice, offer.first_id)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    blocks.block(bob, alice)
    with pytest.raises(MoveRefused, match="bob cannot be invited."):
        puzzles.rematch(match.pk, alice)


def test_the_invitation_is_refused_on_the_form_with_the_players_name(
    client, alice, blocked_by_alice
):
    client.force_login(blocked_by_alice)
    form = {"players": "2", "pace": "rounds", "time_control": "1d", "removed": "0"}
    response = client.post(reverse("new_match"), {**form, "invite": "alice"})
    assert response.status_code == 400 and "alice cannot be invited." in response.text
    german = client.post(
        reverse("new_match"), {**form, "invite": "alice"}, HTTP_ACCEPT_LANGUAGE="de"
    )
    assert "alice kann nicht eingeladen werden." in german.text
    challenge = client.post(
        reverse("new_challenge"), {"players": "2", "time_control": "1d", "invite": "alice"}
    )
    assert challenge.status_code == 400 and "alice cannot be invited." in challenge.text
    assert not Match.objects.exists() and not ChallengeOffer.objects.exists()


def test_a_blocked_player_takes_no_open_seat_beside_the_blocker(client, alice, blocked_by_alice):
    seek = services.create_match(alice, players=3, time_control="1d", rated=True, open=True)
    with pytest.raises(MoveRefused, match="You cannot join this match."):
        services.join(seek.pk, blocked_by_alice)
    client.force_login(blocked_by_alice)
    response = client.post(reverse("join", args=[seek.pk]))
    assert response.status_code == 400 and "You cannot join this match." in response.text
    assert not seek.seats.filter(player=blocked_by_alice).exists()


def test_a_seek_where_anybody_seated_blocked_the_reader_is_left_out_of_their_lists(
    client, alice, blocked_by_alice, carol
):
    by_alice = services.create_match(alice, players=3, time_control="1d", rated=True, open=True)
    by_carol = services.create_match(carol, players=3, time_control="1d", rated=True, open=True)
    other = services.create_match(carol, players=3, time_control="1d", rated=True, open=True)
    services.join(by_carol.pk, alice)  # alice sits there now
    client.force_login(blocked_by_alice)
    lobby = client.get(reverse("lobby")).text
    home = client.get(reverse("home")).text
    for page in (lobby, home):
        assert f'data-seek="{other.pk}"' in page
        assert f'data-seek="{by_alice.pk}"' not in page
        assert f'data-seek="{by_carol.pk}"' not in page
    client.force_login(carol)
    assert f'data-seek="{by_alice.pk}"' in client.get(reverse("lobby")).text


def test_the_blocker_is_not_offered_the_open_seats_beside_the_blocked(
    client, alice, blocked_by_alice, carol
):
    by_bob = services.create_match(
        blocked_by_alice, players=3, time_control="1d", rated=True, open=True
    )
    by_carol = services.create_match(carol, players=3, time_control="1d", rated=True, open=True)
    other = services.create_match(carol, players=3, time_control="1d", rated=True, open=True)
    services.join(by_carol.pk, blocked_by_alice)  # bob sits there now
    client.force_login(alice)
    lobby = client.get(reverse("lobby")).text
    home = client.get(reverse("home")).text
    for page in (lobby, home):
        assert f'data-seek="{other.pk}"' in page
        assert f'data-seek="{by_bob.pk}"' not in page
        assert f'data-seek="{by_carol.pk}"' not in page
        assert reverse("join", args=[by_bob.pk]) not in page
    blocks.unblock(alice, blocked_by_alice)
    assert f'data-seek="{by_bob.pk}"' in client.get(reverse("home")).text


def test_block_and_unblock_from_the_profile_and_the_settings(client, alice, bob):
    client.force_login(alice)
    page = client.get(reverse("profile", args=["bob"])).text
    assert "data-block>" in page and "Block bob" in page
    response = client.post(reverse("block", args=["bob"]), follow=True)
    assert "You blocked bob." in response.text and "data-unblock>" in response.text
    assert blocks.blocks(alice.pk, bob.pk)
    settings = client.get(reverse("settings")).text
    assert 'data-blocked="bob"' in settings
    response = client.post(
        reverse("unblock", args=["bob"]), {"next": reverse("settings")}, follow=False
    )
    assert response.url == reverse("settings")
    assert not blocks.blocks(alice.pk, bob.pk)
    assert "data-blocked-none" in client.get(reverse("settings")).text
    elsewhere = client.post(reverse("block", args=["bob"]), {"next": "https://evil.example/"})
    assert elsewhere.url == reverse("profile", args=["bob"])


def test_blocking_by_htmx_answers_the_profiles_part_and_bob_is_not_told(client, alice, bob):
    client.force_login(alice)
    response = client.post(reverse("block", args=["bob"]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "You have blocked this player." in response.text
    assert not Notification.objects.exists()
    client.force_login(bob)
    assert "blocked" not in client.get(reverse("profile", args=["alice"])).text.lower()


def test_blocking_needs_an_account_and_a_post(client, alice, bob):
    response = client.post(reverse("block", args=["bob"]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    client.force_login(alice)
    assert client.get(reverse("block", args=["bob"])).status_code == 405
    assert client.post(reverse("block", args=["alice"]), follow=True).status_code == 200
    assert not Block.objects.exists()


def test_the_settings_list_blocked_players_in_german(client, alice, bob):
    blocks.block(alice, bob)
    client.force_login(alice)
    page = client.get(reverse("settings"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Blockierte Spieler" in page and "Blockierung aufheben" in page
