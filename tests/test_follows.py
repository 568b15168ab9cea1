"""Following players: the service, the profile's buttons, the news it writes and the page
"Following", which shows only the matches the reader may look at themselves."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import services
from games.models import Follow, FollowNotice, Match, Notification, Profile, Rating
from games.services import MoveRefused
from games.services.features import blocks, closing, export, follows, puzzles
from games.services.match import bot_seats
from tests.factories import make_match, make_puzzles, said

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def news_of(user) -> list[str]:
    return said(player=user)


def test_a_follow_is_kept_once_and_the_followed_player_is_told_once(alice, bob):
    assert follows.follow(alice, bob) is True
    assert follows.follow(alice, bob) is False
    assert Follow.objects.count() == 1
    assert follows.follows(alice, bob) and not follows.follows(bob, alice)
    assert news_of(bob) == ["alice follows you."]
    assert news_of(alice) == []
    assert follows.counts(bob) == (1, 0) and follows.counts(alice) == (0, 1)
    follows.unfollow(alice, bob)
    assert not Follow.objects.exists() and follows.counts(bob) == (0, 0)


def test_following_and_unfollowing_in_a_loop_tells_the_followed_player_once_a_day(alice, bob):
    for _ in range(10):
        assert follows.follow(alice, bob) is True
        follows.unfollow(alice, bob)
    assert news_of(bob) == ["alice follows you."]
    FollowNotice.objects.update(sent_at=timezone.now() - follows.NOTICE_EVERY)
    follows.follow(alice, bob)
    follows.unfollow(alice, bob)
    follows.follow(alice, bob)
    assert news_of(bob) == ["alice follows you."] * 2


def test_a_follow_notice_is_once_a_day_per_pair_of_players(alice, bob, carol):
    follows.follow(alice, bob)
    follows.unfollow(alice, bob)
    follows.follow(carol, bob)
    follows.follow(bob, alice)
    follows.follow(alice, bob)
    assert sorted(news_of(bob)) == ["alice follows you.", "carol follows you."]
    assert news_of(alice) == ["bob follows you."]


def test_the_news_of_a_follow_is_said_in_the_language_it_is_read_in(alice, bob):
    Profile.objects.create(player=bob, language="de")
    follows.follow(alice, bob)
    with translation.override("de"):
        assert news_of(bob) == ["alice folgt dir."]
    assert news_of(bob) == ["alice follows you."]
    notification = Notification.objects.get(player=bob)
    assert notification.match is None and notification.kind == Notification.Kind.INFO


@pytest.mark.parametrize(
    "case,message",
    [
        ("oneself", "You cannot follow yourself."),
        ("guest", "Create an account to follow players."),
        ("closed", "closed account"),
        ("blocked by them", "bob cannot be followed."),
        ("blocking them", "You have blocked bob: unblock them to follow them."),
    ],
)
def test_follows_that_cannot_be_are_refused_and_nothing_is_kept(alice, bob, case, message):
    follower, followed = alice, bob
    if case == "oneself":
        followed = alice
    elif case == "guest":
        Profile.objects.create(player=alice, guest=True)
    elif case == "closed":
        closing.close(bob)
        followed = User.objects.get(pk=bob.pk)
    elif case == "blocked by them":
        blocks.block(bob, alice)
    else:
        blocks.block(alice, bob)
    with pytest.raises(MoveRefused, match=message):
        follows.follow(follower, followed)
    assert not Follow.objects.exists()
    assert not Notification.objects.exists()


def test_a_bot_can_be_followed_and_is_sent_no_news(alice):
    bot = bot_seats.account("easy", "nmbr9")
    assert follows.follow(alice, bot)
    assert news_of(bot) == []


def test_blocking_ends_following_both_ways(alice, bob, carol):
    follows.follow(alice, bob)
    follows.follow(bob, alice)
    follows.follow(carol, alice)
    blocks.block(alice, bob)
    assert list(Follow.objects.values_list("follower__username", "followed__username")) == [
        ("carol", "alice")
    ]


def test_closing_an_account_ends_its_follows_and_blocks(alice, bob, carol):
    follows.follow(alice, bob)
    follows.follow(carol, alice)
    blocks.block(alice, carol)
    closing.close(alice)
    assert not Follow.objects.exists() and not FollowNotice.objects.exists()
    assert not blocks.blocked_ids(User.objects.get(pk=alice.pk))


def test_the_export_lists_whom_the_player_follows_and_has_blocked(alice, bob, carol):
    follows.follow(alice, bob)
    follows.follow(carol, alice)
    blocks.block(alice, carol)
    data = export.everything(alice)
    assert data["following"] == ["bob"] and data["blocked"] == ["carol"]
    sent = FollowNotice.objects.get(follower=alice).sent_at
    assert data["follow_news_sent"] == [{"player": "bob", "at": sent.isoformat()}]


# ------------------------------------------------------------------ the profile


def test_the_profile_offers_follow_and_shows_the_counts(client, alice, bob):
    follows.follow(bob, alice)
    client.force_login(alice)
    page = client.get(reverse("profile", args=["bob"])).text
    assert "data-follow>" in page and "data-unfollow>" not in page
    assert "0 followers" in page and "follows 1 player" in page
    response = client.post(reverse("follow", args=["bob"]))
    assert response.status_code == 302 and response.url == reverse("profile", args=["bob"])
    page = client.get(response.url).text
    assert "You follow bob." in page and "data-unfollow>" in page and "1 follower" in page
    own = client.get(reverse("profile", args=["alice"])).text
    assert "data-follow>" not in own and "data-block>" not in own
    assert reverse("following") in own and "1 follower" in own and "follows 1 player" in own


def test_follow_and_unfollow_by_htmx_answer_the_profiles_part(client, alice, bob):
    client.force_login(alice)
    response = client.post(reverse("follow", args=["bob"]), **HTMX)
    assert response.status_code == 200
    assert response.text.startswith('<div id="social"') and "data-unfollow>" in response.text
    assert "1 follower" in response.text and "<html" not in response.text
    response = client.post(reverse("unfollow", args=["bob"]), **HTMX)
    assert "data-follow>" in response.text and "0 followers" in response.text
    assert not Follow.objects.exists()


def test_a_refused_follow_by_htmx_says_why_in_place(client, alice, bob):
    blocks.block(bob, alice)
    client.force_login(alice)
    response = client.post(reverse("follow", args=["bob"]), **HTMX)
    assert response.status_code == 400 and "bob cannot be followed." in response.text
    assert not Follow.objects.exists()


def test_follow_is_a_post_and_needs_an_account(client, alice, bob):
    client.force_login(alice)
    assert client.get(reverse("follow", args=["bob"])).status_code == 405
    assert client.post(reverse("follow", args=["nobody"])).status_code == 404
    visitor = Client()
    response = visitor.post(reverse("follow", args=["bob"]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert "data-follow-hint" in visitor.get(reverse("profile", args=["bob"])).text
    guest = Client()
    guest.post(reverse("new_solo"))
    response = guest.post(reverse("follow", args=["bob"]))
    assert response.status_code == 302 and response.url.startswith(reverse("signup"))
    page = guest.get(reverse("profile", args=["bob"])).text
    assert "to follow players: your games come with you." in page and "data-follow>" not in page
    assert not Follow.objects.exists()


def test_a_guests_and_a_closed_accounts_profile_offer_no_follow(client, alice, bob):
    guest = Client()
    guest.post(reverse("new_solo"))
    name = User.objects.get(profile__guest=True).username
    closing.close(bob)
    client.force_login(alice)
    for shown in (name, f"closed-{bob.pk}"):
        page = client.get(reverse("profile", args=[shown])).text
        assert "data-follow>" not in page and "data-block>" not in page


def test_the_profile_in_german(client, alice, bob):
    client.force_login(alice)
    page = client.get(reverse("profile", args=["bob"]), HTTP_ACCEPT_LANGUAGE="de").text
    assert ">Folgen</button>" in page and "bob blockieren" in page and "0 Follower" in page


def test_too_many_follows_are_refused_for_a_while(client, alice, bob, monkeypatch):
    monkeypatch.setattr("games.infra.limits.SOCIAL_ACTIONS", "2/hour")
    client.force_login(alice)
    client.post(reverse("follow", args=["bob"]))
    client.post(reverse("unfollow", args=["bob"]))
    response = client.post(reverse("follow", args=["bob"]), follow=True)
    assert "Too many follows and blocks." in response.text
    assert not Follow.objects.exists() and len(news_of(bob)) == 1


# ------------------------------------------------------------------ the page "Following"


def test_following_lists_ratings_and_only_the_matches_the_reader_may_see(client, alice, bob, carol):
    dave = User.objects.create_user("dave", "dave@example.com", "a-Long-pa55word")
    follows.follow(alice, bob)
    follows.follow(alice, carol)
    Rating.objects.create(player=bob, game="nmbr9", pool=Rating.Pool.MATCH, value=1612, games=30)
    Rating.objects.create(player=bob, game="nmbrs", pool=Rating.Pool.MATCH, value=1480, games=2)
    hidden = make_match(bob, dave)  # alice plays no part in it, and it is private
    Match.objects.filter(pk=hidden.pk).update(private=True)
    watched = make_match(bob, dave, seed=8)  # a public match anybody may watch
    shared = make_match(alice, carol)
    seek = services.create_match(bob, players=2, time_control="1d", rated=True, open=True)
    closed = services.create_match(
        bob, players=2, time_control="1d", rated=True, invite=["dave"], open=False
    )
    client.force_login(alice)
    response = client.get(reverse("following"))
    page = response.text
    assert response.status_code == 200
    assert page.index('data-followed="bob"') < page.index('data-followed="carol"')
    assert "NMBR 9: 1612" in page and "nmbrs!: 1480?" in page
    assert shared.get_absolute_url() in page and seek.get_absolute_url() in page
    assert "waiting for players" in page
    for unseen in (hidden, closed):
        assert unseen.get_absolute_url() not in page and f"#{unseen.pk}<" not in page
    entries = {e.player.username: e for e in follows.following(alice)}
    assert sorted(m.pk for m in entries["bob"].playing) == sorted([seek.pk, watched.pk])
    assert [m.pk for m in entries["carol"].playing] == [shared.pk]
    assert Match.objects.get(pk=hidden.pk).status == Match.Status.ACTIVE


def test_following_what_a_follower_plays_is_no_wider_than_its_own_page(client, alice, bob, carol):
    """Every match the list links to opens for the reader; every one it leaves out does not."""
    follows.follow(alice, bob)
    listed = make_match(alice, bob)
    watched = make_match(bob, carol, seed=8)
    left_out = make_match(bob, carol)
    Match.objects.filter(pk=left_out.pk).update(private=True)
    client.force_login(alice)
    shown = {m.pk for e in follows.following(alice) for m in e.playing}
    assert shown == {listed.pk, watched.pk}
    assert client.get(watched.get_absolute_url()).status_code == 200
    assert client.get(listed.get_absolute_url()).status_code == 200
    assert client.get(left_out.get_absolute_url()).status_code == 404


def test_following_lists_its_players_a_page_at_a_time(client, alice, monkeypatch):
    monkeypatch.setattr(follows, "FOLLOWED_PER_PAGE", 2)
    names = ["erin", "dora", "finn", "gus", "hal"]
    for name in names:
        Follow.objects.create(follower=alice, followed=User.objects.create_user(name))
    client.force_login(alice)

    def listed(page):
        return re.findall(r'data-followed="(\w+)"', page)

    first = client.get(reverse("following")).text
    assert listed(first) == ["dora", "erin"] and 'rel="prev"' not in first
    assert 'href="?page=2" rel="next"' in first and "Page 1 of 3" in first
    last = client.get(reverse("following"), {"page": 3}).text
    assert listed(last) == ["hal"] and 'href="?page=2" rel="prev"' in last
    for wrong in ("4", "0", "two"):
        response = client.get(reverse("following"), {"page": wrong})
        assert response.status_code == 400
        assert "There is no such page of players" in response.text
        assert listed(response.text) == ["dora", "erin"]
    german = client.get(reverse("following"), {"page": 2}, HTTP_ACCEPT_LANGUAGE="de").text
    assert "Seite 2 von 3" in german and ">Weiter<" in german and ">Zurück<" in german


def test_following_is_for_accounts_and_in_german(client, alice, bob):
    assert Client().get(reverse("following")).status_code == 302
    follows.follow(alice, bob)
    client.force_login(alice)
    page = client.get(reverse("following"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Ich folge" in page and "Noch keine Wertung." in page and "Spieler finden" in page
    assert "Gerade nichts, was du ansehen kannst." in page


def test_following_never_shows_a_followed_players_puzzle_games(client, alice, bob, carol):
    """Today's daily and a challenge under way are games on a secret order: not listed."""
    make_puzzles(921, 922, 923)
    follows.follow(alice, bob)
    daily = puzzles.play_daily(bob)
    offer = puzzles.offer_challenge(
        bob, invite=["carol"], players=2, open=False, rated=True, time_control="1d"
    )
    challenge = puzzles.pick_challenge(offer.pk, bob, offer.first_id)
    services.join(challenge.pk, carol)
    client.force_login(alice)
    page = client.get(reverse("following")).text
    for secret in (daily, challenge):
        assert secret.get_absolute_url() not in page
    assert "data-playing-none" in page


def playing_as_first_listed(reader) -> dict[str, list[int]]:
    """What "Following" listed of each followed player's matches before it read only those
    it shows: every seat under way of every followed player, newest first, checked one by
    one, PLAYING_SHOWN kept."""
    from collections import defaultdict

    from games.models import Seat
    from games.services.match import visibility

    listed = {
        u.pk: u.username for u in User.objects.filter(followers__follower=reader, is_active=True)
    }
    seats = (
        Seat.objects.filter(
            player_id__in=listed, match__status__in=[Match.Status.ACTIVE, Match.Status.WAITING]
        )
        .exclude(state__in=[Seat.State.RESIGNED, Seat.State.DROPPED])
        .select_related("match__puzzle")
        .order_by("-match__created")
    )
    own = {s.match_id: s for s in Seat.objects.filter(player=reader)}
    shown: dict[str, list[int]] = defaultdict(list)
    for seat in seats:
        name = listed[seat.player_id]
        try:
            visibility.check_match_visible(reader, seat.match, own.get(seat.match_id))
        except (Match.DoesNotExist, visibility.Hidden):
            continue
        if len(shown[name]) < follows.PLAYING_SHOWN:
            shown[name].append(seat.match_id)
    return dict(shown)


def test_following_reads_the_matches_it_shows_and_shows_what_it_did(alice, bob, carol):
    """A followed player with more matches under way than are shown, among them private
    ones, solo games, seeks, invitations, one the reader plays in, one they left, and
    finished ones: the same list as before, in four queries."""
    from datetime import timedelta

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.models import Seat

    dave = User.objects.create_user("dave", "dave@example.com", "a-Long-pa55word")
    for other in (bob, carol, dave):
        follows.follow(alice, other)
    now = timezone.now()
    kinds = [
        ("public", Match.Status.ACTIVE, {}),
        ("private", Match.Status.ACTIVE, {"private": True}),
        ("solo", Match.Status.ACTIVE, {"kind": Match.Kind.SOLO, "players": 1}),
        ("seek", Match.Status.WAITING, {"open": True}),
        ("invitation", Match.Status.WAITING, {}),
        ("with alice", Match.Status.ACTIVE, {"private": True}),
        ("left", Match.Status.ACTIVE, {}),
        ("finished", Match.Status.FINISHED, {}),
    ]
    for number in range(40):
        label, status, fields = kinds[number % len(kinds)] if number % 3 else kinds[0]
        player = bob if number < 34 else carol
        match = Match.objects.create(
            **{"kind": Match.Kind.MATCH, "players": 2, **fields},
            status=status,
            seed=number,
            created_by=player,
        )
        Match.objects.filter(pk=match.pk).update(created=now - timedelta(minutes=number))
        Seat.objects.create(
            match=match,
            player=player,
            index=0,
            state=Seat.State.RESIGNED if label == "left" else Seat.State.PLAYING,
        )
        if match.players == 2:
            Seat.objects.create(
                match=match, player=alice if label == "with alice" else dave, index=1
            )
    expected = playing_as_first_listed(alice)
    assert len(expected["bob"]) == follows.PLAYING_SHOWN and len(expected["carol"]) < 6
    with CaptureQueriesContext(connection) as queries:
        entries = follows.following(alice)
    assert len(queries) == 4
    assert [e.player.username for e in entries] == ["bob", "carol", "dave"]
    shown = {e.player.username: [m.pk for m in e.playing] for e in entries if e.playing}
    assert shown == expected
