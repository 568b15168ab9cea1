"""A third game needs nothing outside its package: Race to 21 (``tests/race21``, made for the
tests) is added to the site's games through the setting ``GAME_PACKAGES`` alone, and then is
offered, created, joined, played to the end by two players, rated, replayed, listed in the
lobby and watched, and played against a bot, all through the real views."""

import re
from html import unescape
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import reverse

from games.models import Match, Move, PlayerStats, RatingChange, Seat
from games.registry import GAMES
from games.services.match import bot_moves, finish

PACKAGE = "tests.race21"
ROOT = Path(settings.BASE_DIR)


@pytest.fixture
def race21():
    """The site with Race to 21 as its third game: its package named in the setting (and
    installed, as every game package is)."""
    with override_settings(
        GAME_PACKAGES=[*settings.GAME_PACKAGES, PACKAGE],
        INSTALLED_APPS=[*settings.INSTALLED_APPS, PACKAGE],
    ):
        yield


def steps(html: str) -> list[str]:
    """The moves the page's buttons post."""
    return [unescape(m) for m in re.findall(r'name="move" value="([^"]*)"', html)]


def ply_of(user, match) -> int:
    return Move.objects.filter(match=match, seat__player=user).count()


def press_a_step(client, user, match) -> None:
    """``user`` looks at the match page and presses its first button."""
    client.force_login(user)
    page = client.get(match.get_absolute_url())
    assert page.status_code == 200
    offered = steps(page.text)
    assert offered and all(re.fullmatch(r"add [123]", text) for text in offered)
    answer = client.post(
        reverse("play", args=[match.pk]), {"move": offered[-1], "ply": ply_of(user, match)}
    )
    assert answer.status_code == 302


def test_the_game_is_not_there_until_its_package_is_named(client):
    assert "race21" not in GAMES
    assert client.get(reverse("help", args=["race21"])).status_code == 404


def test_two_players_create_join_play_rate_replay_and_a_spectator_watches(
    race21, client, alice, bob, carol
):
    assert list(GAMES)[-1] == "race21"
    home = client.get(reverse("home")).text
    assert 'data-game-card="race21"' in home and "data-race21-picture" in home
    assert "NMBR 9, nmbrs! and Race to 21, online" in home
    help_page = client.get(reverse("help", args=["race21"]))
    assert help_page.status_code == 200 and "data-race21-rules" in help_page.text
    assert "race21/race21.css" in help_page.text  # the game's own stylesheet, on every page

    client.force_login(alice)
    form = client.get(reverse("new_match"), {"game": "race21"})
    assert form.status_code == 200 and 'name="target"' in form.text
    assert 'data-game="race21"' in form.text
    created = client.post(
        reverse("new_match"),
        {
            "game": "race21",
            "players": "2",
            "time_control": "1d",
            "rated": "on",
            "open": "on",
            "target": "12",
        },
    )
    match = Match.objects.get(game="race21")
    assert created.status_code == 302 and created.url == match.get_absolute_url()
    assert match.options == {"target": 12} and match.rated

    client.force_login(bob)
    lobby = client.get(reverse("lobby")).text
    assert match.get_absolute_url() in lobby and "to 12" in lobby
    assert client.post(reverse("join", args=[match.pk])).status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE

    client.force_login(carol)
    assert match.get_absolute_url() in client.get(reverse("lobby")).text  # to watch
    watched = client.get(match.get_absolute_url())
    assert watched.status_code == 200 and "data-total" in watched.text
    assert steps(watched.text) == []  # a spectator has no buttons

    players = {seat.index: seat.player for seat in Seat.objects.filter(match=match)}
    first = Match.objects.get(pk=match.pk)
    refused = None
    for _turn in range(20):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            break
        to_move = Seat.objects.get(match=match, deadline__isnull=False)
        if refused is None:  # the other player's move is refused, and changes nothing
            other = players[1 - to_move.index]
            client.force_login(other)
            refused = client.post(
                reverse("play", args=[match.pk]), {"move": "add 1", "ply": ply_of(other, match)}
            )
            assert refused.status_code == 400 and "It is not your turn." in refused.text
        press_a_step(client, players[to_move.index], match)
    assert match.status == Match.Status.FINISHED and first.status == Match.Status.ACTIVE
    winner = Seat.objects.get(match=match, rank=1)
    assert winner.score == 1

    assert finish.rate_match(match.pk)
    changes = RatingChange.objects.filter(match=match)
    assert {c.game for c in changes} == {"race21"} and changes.count() == 2
    finish.refresh_player_stats(winner.player_id)
    stats = PlayerStats.objects.get(player=winner.player, game="race21")
    assert (stats.match_games, stats.match_wins) == (1, 1)
    profile = client.get(reverse("profile", args=[winner.player.username])).text
    assert 'data-game-figures="race21"' in profile
    race21 = re.search(r'data-game-figures="race21".*?</section>', profile, re.S).group(0)
    assert 'data-stat="rated">1<' in race21 and 'data-stat="wins">1<' in race21
    assert 'data-stat="games"' not in race21  # no solo games in a game of 2-4 players

    replay = client.get(reverse("replay", args=[match.pk]), {"ply": 1})
    assert replay.status_code == 200 and "After move 1 of" in replay.text
    assert "data-replay-total" in replay.text
    log = client.get(match.get_absolute_url()).text
    assert "Move 1" in log and "data-winner" in log


def test_a_player_plays_the_strong_bot_to_the_end(race21, client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_solo"), {"game": "race21", "bot": "strong"})
    assert page.status_code == 200 and 'value="strong" selected' in page.text
    response = client.post(reverse("new_solo"), {"game": "race21", "bot": "strong"})
    match = Match.objects.get(game="race21")
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    bot = Seat.objects.get(match=match, bot="strong")
    for _turn in range(30):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            break
        bot.refresh_from_db()
        if bot.bot_due is not None:
            assert bot_moves.play_bots(match.pk) >= 1
        else:
            press_a_step(client, alice, match)
    assert match.status == Match.Status.FINISHED
    assert Move.objects.filter(match=match, seat=bot).exists()
    home = client.get(reverse("home")).text
    assert match.get_absolute_url() in home


def test_the_games_list_of_a_dashboard_shows_the_third_games_glance(race21, client, alice, bob):
    client.force_login(alice)
    client.post(
        reverse("new_match"),
        {"game": "race21", "players": "2", "time_control": "1d", "invite": "bob"},
    )
    match = Match.objects.get(game="race21")
    client.force_login(bob)
    client.post(reverse("join", args=[match.pk]))
    mover = Seat.objects.get(match=match, deadline__isnull=False).player
    client.force_login(mover)
    home = client.get(reverse("home")).text
    assert "data-race21-glance" in home and "0 / 21" in home


def test_no_file_outside_the_game_packages_names_a_game():
    """The generic templates, stylesheets and scripts say nothing of a particular game: a
    game's own live in its package."""
    names = {
        word for rules in GAMES.values() for word in (rules.slug, rules.name) if word != "nmbr9"
    }
    pattern = re.compile(
        r"\b(?:nmbr9(?!site)|" + "|".join(re.escape(n) for n in sorted(names)) + r")", re.I
    )
    generic = [
        *(ROOT / "templates").rglob("*.*"),
        *(ROOT / "static").rglob("*.css"),
        *(ROOT / "static").rglob("*.js"),
    ]
    assert len(generic) > 50
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}"
        for path in generic
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
