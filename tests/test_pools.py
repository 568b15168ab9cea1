"""Play now: pools of players waiting for a real-time match, paired by rating with a window
that widens while they wait, the bot offered after a while, and the pages."""

import signal
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from games.infra import clock
from games.models import Block, Match, PoolEntry, Rating, Seat
from games.services import MoveRefused, speed_of
from games.services.features import live_duplicate, pools, swiss_rounds
from tests.factories import HTMX, guest_of

pytestmark = pytest.mark.django_db

T0 = timezone.now().replace(microsecond=0)


def at(seconds: float):
    return T0 + timedelta(seconds=seconds)


def user(name: str, rating: float | None = None, game: str = "nmbr9") -> User:
    player = User.objects.create_user(name, f"{name}@example.com", "a-Long-pa55word")
    if rating is not None:
        Rating.objects.create(player=player, game=game, pool=Rating.Pool.LIVE, value=rating)
    return player


def entry(player) -> PoolEntry:
    return PoolEntry.objects.get(player=player)


def seen_at(seconds: float) -> None:
    """Every entry's player looked at their page at ``seconds``."""
    PoolEntry.objects.update(seen=at(seconds))


def test_joining_keeps_one_entry_with_the_rating_of_then(alice):
    Rating.objects.create(player=alice, game="nmbr9", pool=Rating.Pool.LIVE, value=1620)
    pools.join(alice, "nmbr9", "30s", 2, now=at(0))
    mine = entry(alice)
    assert (mine.game, mine.speed, mine.players, mine.rating, mine.rated) == (
        "nmbr9",
        "30s",
        2,
        1620,
        True,
    )
    pools.join(alice, "nmbrs", "15s", 3, now=at(5))  # again: in place of the first
    assert PoolEntry.objects.count() == 1
    mine = entry(alice)
    assert (mine.game, mine.speed, mine.players, mine.rating, mine.joined) == (
        "nmbrs",
        "15s",
        3,
        1500,
        at(5),
    )
    pools.leave(alice)
    assert not PoolEntry.objects.exists()
    assert pools.status(alice).entry is None


@pytest.mark.parametrize(
    ("game", "speed", "players", "says"),
    [
        ("chess", "30s", 2, "Choose a game."),
        ("nmbr9", "1h", 2, "Choose a time per move."),
        ("nmbr9", "30s", 5, "A real-time match of NMBR 9 has 2 to 4 players."),
        ("nmbrs", "30s", 1, "A real-time match of nmbrs! has 2 to 4 players."),
    ],
)
def test_bad_choices_are_refused(alice, game, speed, players, says):
    with pytest.raises(MoveRefused, match=says):
        pools.join(alice, game, speed, players)
    assert not PoolEntry.objects.exists()


def test_two_players_of_a_pool_start_a_rated_match_at_once(alice, bob):
    pools.join(alice, "nmbr9", "30s", 2, now=at(0))
    assert pools.status(alice, at(1)).match is None
    pools.join(bob, "nmbr9", "30s", 2, now=at(2))
    match = entry(alice).match
    assert match is not None and entry(bob).match == match
    assert match.status == Match.Status.ACTIVE and match.realtime and match.rated
    assert speed_of(match) == "30s" and match.game == "nmbr9"
    assert {s.player_id for s in match.seats.all()} == {alice.pk, bob.pk}
    assert pools.status(bob, at(3)).match == match
    # Paired, she plays that match: she cannot wait for another until it is over.
    with pytest.raises(MoveRefused, match="Finish your real-time game first."):
        pools.join(alice, "nmbr9", "15s", 2, now=at(4))
    assert entry(alice).match == match


def test_other_pools_do_not_mix(alice, bob, carol):
    pools.join(alice, "nmbr9", "30s", 2, now=at(0))
    pools.join(bob, "nmbr9", "15s", 2, now=at(0))
    pools.join(carol, "nmbrs", "30s", 2, now=at(0))
    assert not pools.pair(at(1))
    assert pools.status(alice, at(1)).waiting == 1


def test_the_window_widens_while_they_wait_and_each_must_cover_the_difference():
    low, high = user("low", 1500), user("high", 1800)
    pools.join(low, "nmbr9", "30s", 2, now=at(0))
    pools.join(high, "nmbr9", "30s", 2, now=at(0))
    seen_at(7)
    assert not pools.pair(at(7))  # 100 + 25 * 7 = 275 < 300
    assert pools.window(entry(low), at(8)) == 300
    seen_at(8)
    (match,) = pools.pair(at(8))
    assert set(match.seats.values_list("player_id", flat=True)) == {low.pk, high.pk}


def test_a_newcomer_s_narrow_window_holds_the_pair_back():
    old, new = user("old", 1500), user("new", 1800)
    pools.join(old, "nmbr9", "30s", 2, now=at(0))
    pools.join(new, "nmbr9", "30s", 2, now=at(6))
    seen_at(10)
    assert not pools.pair(at(10))  # old covers 350, new only 200
    seen_at(14)
    assert len(pools.pair(at(14))) == 1  # new covers 300 now


def test_the_window_stops_widening():
    far, near = user("far", 900), user("near", 2100)
    pools.join(far, "nmbr9", "30s", 2, now=at(0))
    pools.join(near, "nmbr9", "30s", 2, now=at(0))
    assert pools.window(entry(far), at(36)) == pools.window(entry(far), at(600)) == 1000
    seen_at(600)
    assert not pools.pair(at(600))


def test_the_oldest_is_paired_first_with_the_oldest_that_fits():
    first, second, third = user("first"), user("second"), user("third")
    for n, player in enumerate((first, second, third)):  # all three wait when it pairs
        PoolEntry.objects.create(
            player=player,
            game="nmbr9",
            speed="60s",
            players=2,
            rating=1500 + 10 * n,
            rated=True,
            joined=at(n),
            seen=at(n),
        )
    (match,) = pools.pair(at(3))
    assert set(match.seats.values_list("player_id", flat=True)) == {first.pk, second.pk}
    assert entry(third).match is None


def test_three_and_four_player_pools_fill_their_matches(alice, bob, carol):
    pools.join(alice, "nmbrs", "30s", 3, now=at(0))
    pools.join(bob, "nmbrs", "30s", 3, now=at(0))
    assert entry(alice).match is None
    pools.join(carol, "nmbrs", "30s", 3, now=at(1))
    match = entry(alice).match
    assert match is not None and match.players == 3 and match.seats.count() == 3
    five = [user(f"p{n}") for n in range(5)]
    for n, player in enumerate(five):
        pools.join(player, "nmbr9", "15s", 4, now=at(2 + n))
    matches = {entry(p).match_id for p in five[:4]}
    assert len(matches) == 1 and None not in matches
    assert Seat.objects.filter(match_id=matches.pop()).count() == 4
    assert entry(five[4]).match is None  # the last to come waits for three more


def test_players_one_of_whom_blocked_the_other_are_never_paired(alice, bob, carol):
    Block.objects.create(blocker=bob, blocked=alice)
    pools.join(alice, "nmbr9", "30s", 2, now=at(0))
    pools.join(bob, "nmbr9", "30s", 2, now=at(1))
    assert entry(alice).match is None and entry(bob).match is None
    pools.join(carol, "nmbr9", "30s", 2, now=at(2))
    assert entry(alice).match is not None and entry(alice).match == entry(carol).match
    assert entry(bob).match is None


def test_who_stops_looking_leaves_the_pool(alice, bob):
    pools.join(alice, "nmbr9", "30s", 2, now=at(0))
    pools.status(alice, at(15))  # her page polls
    assert pools.drop_stale(at(34)) == 0
    assert pools.drop_stale(at(36)) == 1
    assert not PoolEntry.objects.exists()
    # An entry not seen for too long is not paired, even before it is dropped.
    pools.join(alice, "nmbr9", "30s", 2, now=at(40))
    pools.join(bob, "nmbr9", "30s", 2, now=at(61))
    assert entry(bob).match is None


@pytest.mark.parametrize(
    ("rating", "strength"), [(1300, "easy"), (1500, "medium"), (1750, "strong")]
)
def test_after_a_while_a_bot_of_about_the_player_s_strength_is_offered(rating, strength):
    player = user("waiting", rating)
    pools.join(player, "nmbr9", "30s", 2, now=at(0))
    early = pools.status(player, at(29))
    assert early.bot == "" and early.waiting == 1 and early.waited == 29
    with pytest.raises(MoveRefused):
        pools.play_bot(player, at(29))
    assert pools.status(player, at(30)).bot == strength
    match = pools.play_bot(player, at(31))
    assert not PoolEntry.objects.exists()
    assert match.realtime and speed_of(match) == "30s" and not match.rated
    bot = Seat.objects.get(match=match, bot=strength)
    assert bot.player.username == f"bot-{strength}" and bot.deadline is None
    assert Seat.objects.get(match=match, player=player).deadline is not None


def test_a_player_paired_meanwhile_gets_the_match_not_the_bot(alice, bob):
    pools.join(alice, "nmbr9", "30s", 2, now=at(0))
    assert pools.status(alice, at(30)).bot == "medium"
    pools.join(bob, "nmbr9", "30s", 2, now=at(31))
    assert pools.play_bot(alice, at(32)) == entry(alice).match
    assert not Seat.objects.exclude(bot="").exists()


def test_guests_wait_casual_and_their_matches_are_casual(alice, client):
    client.post(reverse("play_now"), {"game": "nmbr9", "speed": "30s"})
    guest = guest_of(client)
    assert not entry(guest).rated and entry(guest).players == 2
    pools.join(alice, "nmbr9", "30s", 2)
    match = entry(alice).match
    assert match is not None and not match.rated
    assert Seat.objects.filter(match=match, player=guest).exists()


def test_the_page_offers_each_game_and_its_speeds(client):
    page = client.get(reverse("play_now")).content.decode()
    for game in ("nmbr9", "nmbrs"):
        assert f'data-pool="{game}"' in page
    for speed in ("15s", "30s", "60s"):
        assert f'data-speed="{speed}"' in page
    one = client.get(reverse("play_now") + "?game=nmbrs").content.decode()
    assert 'data-pool="nmbrs"' in one and 'data-pool="nmbr9"' not in one
    german = client.get(reverse("play_now"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Jetzt spielen" in german and "s pro Zug" in german
    home = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("play_now")}?game=nmbr9"' in home


@pytest.mark.parametrize(
    "form",
    [
        {"game": "chess", "speed": "30s"},
        {"game": "nmbr9", "speed": "2s"},
        {"game": "nmbr9", "speed": "30s", "players": "٣"},
        {"game": "nmbr9", "speed": "30s", "players": "7"},
        {"game": "nmbr9"},
    ],
)
def test_bad_forms_are_refused_and_make_no_guest(client, form):
    response = client.post(reverse("play_now"), form)
    assert response.status_code == 400
    assert "data-error" in response.content.decode()
    assert not User.objects.exists() and not PoolEntry.objects.exists()


def test_waiting_live_then_sent_to_the_match(client, alice):
    client.force_login(alice)
    response = client.post(reverse("play_now"), {"game": "nmbr9", "speed": "15s", "players": "2"})
    assert response["Location"] == reverse("play_wait")
    page = client.get(reverse("play_wait")).content.decode()
    assert 'hx-trigger="every 1s"' in page and "1 player waits in this pool." in page
    german = client.get(reverse("play_wait"), HTTP_ACCEPT_LANGUAGE="de", **HTMX)
    assert "1 Spieler wartet" in german.content.decode()
    bob = User.objects.create_user("bob2")
    pools.join(bob, "nmbr9", "15s", 2)
    match = entry(alice).match
    polled = client.get(reverse("play_wait"), **HTMX)
    assert polled["HX-Redirect"] == match.get_absolute_url()
    assert client.get(reverse("play_wait"))["Location"] == match.get_absolute_url()


def test_leaving_by_the_page(client, alice):
    client.force_login(alice)
    client.post(reverse("play_now"), {"game": "nmbrs", "speed": "60s", "players": "4"})
    assert entry(alice).players == 4
    assert client.post(reverse("play_leave"))["Location"] == reverse("play_now")
    assert not PoolEntry.objects.exists()
    assert client.get(reverse("play_wait"))["Location"] == reverse("play_now")
    gone = client.get(reverse("play_wait"), **HTMX).content.decode()
    assert "data-pool-left" in gone and "hx-trigger" not in gone  # the polls stop


def test_the_bot_offer_on_the_page(client, alice, monkeypatch):
    client.force_login(alice)
    client.post(reverse("play_now"), {"game": "nmbr9", "speed": "30s"})
    assert "data-bot-offer" not in client.get(reverse("play_wait")).content.decode()
    monkeypatch.setattr(pools, "BOT_AFTER", timedelta(0))
    page = client.get(reverse("play_wait"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert 'data-bot-offer="medium"' in page and "data-keep-waiting" in page
    kept = client.get(reverse("play_wait") + "?keep=1").content.decode()
    assert "data-keep-waiting" not in kept and "data-play-pool-bot" in kept
    response = client.post(reverse("play_bot"))
    match = Match.objects.get()
    assert response["Location"] == match.get_absolute_url()
    assert match.seats.filter(bot="medium").exists()


def test_the_bot_offered_in_a_pool_of_more_players_says_it_plays_one_against_one(
    client, alice, monkeypatch
):
    client.force_login(alice)
    client.post(reverse("play_now"), {"game": "nmbrs", "speed": "30s", "players": "3"})
    monkeypatch.setattr(pools, "BOT_AFTER", timedelta(0))
    page = client.get(reverse("play_wait")).content.decode()
    assert "No partners yet" in page and "one against one" in page
    assert "Games against bots are not rated." in page  # the pool is rated, the bot's game not
    german = client.get(reverse("play_wait"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "eine Partie zu zweit gegen einen Bot" in german
    client.post(reverse("play_bot"))
    assert Match.objects.get().seats.count() == 2


def test_a_player_in_a_live_match_is_sent_back_to_it(client, alice, bob):
    pools.join(alice, "nmbr9", "30s", 2)
    pools.join(bob, "nmbr9", "30s", 2)
    client.force_login(alice)
    response = client.post(reverse("play_now"), {"game": "nmbr9", "speed": "30s"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Finish your real-time game first." in page and "data-live-match" in page


def test_the_clock_drops_who_left_and_pairs_at_each_look(monkeypatch):
    looks = {}
    monkeypatch.setattr(signal, "signal", lambda *args: None)  # pytest keeps its own
    monkeypatch.setattr(clock, "run", lambda stop, period, ticks=(): looks.update(ticks=ticks))
    call_command("clock")
    assert looks["ticks"][:2] == (pools.drop_stale, pools.pair)
    live = [(tick.task, tick.due) for tick in looks["ticks"][2:]]  # live tournaments' work
    assert live == [
        ("games.tasks.run_live", live_duplicate.work_due),
        ("games.tasks.run_live_swiss", swiss_rounds.due_live),
    ]
