"""Bots on the site: playing one from the solo page, inviting one into a match, their moves
(sent as tasks, found again by the sweep), what they may know, and their own rating list."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Match, Move, Rating, RatingChange, Seat
from games.registry import find_game
from games.services.match import bot_moves, bot_seats
from games.tasks import sweep
from tests.factories import seat_of, wait_for


def mine(record, user) -> int:
    """How many moves ``user`` has made: what their page would send with a move."""
    return record.made_by(record.seat_of(user))


def moves_by_bots(match) -> int:
    return Move.objects.filter(match=match, seat__bot__gt="").count()


def test_a_player_starts_a_game_against_a_bot_from_the_solo_page(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_solo"), {"bot": "medium"})
    assert page.status_code == 200
    assert 'value="medium" selected' in page.text and "Nobody: a solo game" in page.text

    response = client.post(reverse("new_solo"), {"game": "nmbr9", "bot": "easy"})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    assert (match.kind, match.players, match.status) == ("match", 2, "active")
    assert (match.rated, match.time_per_move) == (False, None)
    bot = Seat.objects.get(match=match, index=1)
    assert (bot.player.username, bot.bot, bot.deadline) == ("bot-easy", "easy", None)
    assert bot.bot_due is not None  # it owes its first tile, like the player

    assert bot_moves.play_bots(match.pk) == 1
    bot.refresh_from_db()
    assert bot.progress == 1 and bot.bot_due is None  # round 2 waits for the player
    assert bot_moves.play_bots(match.pk) == 0  # sent twice: nothing more to do

    page = client.get(match.get_absolute_url())
    assert 'class="bot-badge"' in page.text and "bot-easy" in page.text


def test_an_unknown_bot_or_a_game_without_bots_is_refused_with_a_reason(client, alice):
    client.force_login(alice)
    response = client.post(reverse("new_solo"), {"game": "nmbr9", "bot": "grandmaster"})
    assert response.status_code == 400 and "There is no grandmaster bot." in response.text
    assert Match.objects.count() == 0
    with pytest.raises(services.MoveRefused):
        services.create_match(
            alice, players=2, time_control="1d", rated=True, invite=["bot-nobody"]
        )


def test_nmbrs_is_played_against_a_bot_and_the_bot_plays_whole_turns(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_solo"), {"game": "nmbrs", "bot": "medium"})
    assert "Nobody: a solo game" not in page.text  # nmbrs! has no solo game
    client.post(reverse("new_solo"), {"game": "nmbrs", "bot": "medium", "target": 30})
    match = Match.objects.get()
    rules = find_game("nmbrs")
    for _ in range(400):
        record = services.load(match)
        if record.rules.outcome(record.state) is not None:
            break
        (player,) = rules.to_move(record.state)
        if player == 1:
            assert Seat.objects.get(match=match, index=1).bot_due is not None
            assert bot_moves.play_bots(match.pk) >= 1
        else:
            services.play(
                match.pk, alice, str(rules.auto_move(record.state, 0)), mine(record, alice)
            )
    match.refresh_from_db()
    assert match.status == "finished" and moves_by_bots(match) > 10
    assert not Seat.objects.filter(match=match).exclude(bot_due=None).exists()


def test_a_bot_invited_to_a_match_takes_its_seat_at_once_and_has_no_deadline(alice, bob):
    match = services.create_match(
        alice,
        players=3,
        time_control="1d",
        rated=True,
        invite=["bot-strong", bob.username],
        options={"pace": "free"},
    )
    bot = Seat.objects.get(match=match, player__username="bot-strong")
    assert (bot.state, bot.bot) == (Seat.State.PLAYING, "strong")
    assert match.status == Match.Status.WAITING  # bob has not answered yet
    services.join(match.pk, bob)
    match.refresh_from_db()
    bot.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert bot.deadline is None and bot.bot_due is not None
    assert seat_of(match, alice).deadline is not None
    assert User.objects.get(username="bot-strong").profile.bot == "strong"


def test_the_bot_works_from_a_state_drawn_for_its_seat_never_the_real_one(alice, monkeypatch):
    match = services.start_against_bot(alice, "medium", game="nmbrs")
    rules = find_game("nmbrs")
    drawn_afresh = []
    real_bot_move = type(rules).bot_move

    def spy(self, state, player, strength, rng):
        real = services.load(match).state  # the match as it stands while the bot thinks
        assert state is not real
        assert rules.view(state, player).to_dict() == rules.view(real, player).to_dict()
        drawn_afresh.append(state.hands[0] != real.hands[0] or state.deck != real.deck)
        return real_bot_move(self, state, player, strength, rng)

    monkeypatch.setattr(type(rules), "bot_move", spy)
    for _ in range(30):
        record = services.load(match)
        if rules.outcome(record.state) is not None:
            break  # a deal can end the match early (the seed is drawn at random)
        (player,) = rules.to_move(record.state)
        if player == 1:
            assert bot_moves.play_bots(match.pk) >= 1
        else:
            services.play(
                match.pk, alice, str(rules.auto_move(record.state, 0)), mine(record, alice)
            )
    # what the bot cannot see (alice's hand, the deck) was drawn afresh, not read
    assert len(drawn_afresh) >= 1 and any(drawn_afresh)


def test_the_sweep_sends_a_bot_that_has_owed_a_move_for_a_while(alice):
    match = services.start_against_bot(alice, "easy")
    assert bot_seats.due() == []  # just asked for: its task is on the way
    Seat.objects.filter(match=match, index=1).update(
        bot_due=timezone.now() - bot_seats.GRACE - timedelta(seconds=1)
    )
    assert bot_seats.due() == [match.pk]


@pytest.mark.worker
def test_a_lost_bot_task_is_sent_again_by_the_sweep_and_the_worker_moves(celery_worker, alice):
    from games.infra import queue

    sent = []
    real_send = queue.send
    queue.send = lambda task, *args: sent.append(task)  # the task is lost
    try:
        match = services.start_against_bot(alice, "medium")
    finally:
        queue.send = real_send
    assert "games.tasks.play_bots" in sent and moves_by_bots(match) == 0
    Seat.objects.filter(match=match, index=1).update(bot_due=timezone.now() - bot_seats.GRACE * 2)
    sweep.delay()
    wait_for(lambda: moves_by_bots(match) == 1)

    record = services.load(match)
    services.play(
        match.pk, alice, str(record.rules.auto_move(record.state, 0)), mine(record, alice)
    )
    wait_for(lambda: moves_by_bots(match) == 2)  # the task sent after the move, by the worker


def test_matches_with_bots_are_rated_in_their_own_list(alice):
    match = services.create_match(
        alice, players=2, time_control="1d", rated=True, invite=["bot-easy"], seed=5
    )
    rules = find_game("nmbr9")
    for _ in range(60):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        bot_moves.play_bots(match.pk)
        record = services.load(match)
        if 0 in rules.to_move(record.state):
            services.play(
                match.pk, alice, str(rules.auto_move(record.state, 0)), mine(record, alice)
            )
    assert match.status == Match.Status.FINISHED
    assert services.rate_match(match.pk)
    assert set(RatingChange.objects.filter(match=match).values_list("pool", flat=True)) == {
        Rating.Pool.BOTS
    }
    assert not Rating.objects.filter(player=alice, pool=Rating.Pool.MATCH).exists()
    assert Rating.objects.filter(player__username="bot-easy", pool=Rating.Pool.BOTS).exists()


def test_bot_names_are_the_sites_and_a_bot_has_a_profile_that_says_so(client, alice):
    response = client.post(
        reverse("signup"),
        {
            "username": "Bot-Strong",
            "email": "x@example.com",
            "password1": "a-Long-pa55word",
            "password2": "a-Long-pa55word",
        },
    )
    assert response.status_code in (200, 400)
    assert "belong to the site" in response.text
    assert not User.objects.filter(username__iexact="bot-strong").exists()

    bot_seats.account("strong")
    page = client.get(reverse("profile", args=["bot-strong"]))
    assert page.status_code == 200 and "data-bot-profile" in page.text
    assert "?bot=strong" in page.text


def test_a_bot_still_playing_its_tiles_is_not_sent_a_second_task(alice):
    """Free pace: the bot owes its next tile right after each one; its mark is renewed at
    every move, so a long game played by one task never looks overdue to the sweep."""
    match = services.start_against_bot(alice, "easy", options={"pace": "free"})
    long_ago = timezone.now() - bot_seats.GRACE * 3
    Seat.objects.filter(match=match, index=1).update(bot_due=long_ago)
    record = services.load(match)
    seat = record.seats[1]
    services.play(match.pk, seat.player, str(bot_moves.think(record, seat)), record.made_by(seat))
    seat.refresh_from_db()
    assert seat.progress == 1 and seat.bot_due > long_ago  # its first tile is placed
    assert bot_seats.due() == []


def offered_bots(page: str) -> list[tuple[str, str]]:
    """The bots a page's opponent list offers: (strength, name), as listed."""
    listed = re.search(r'<select name="bot" id="id_bot">(.*?)</select>', page, re.S)
    assert listed, "no list of opponents"
    return [
        (value, name)
        for value, name in re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', listed[1])
        if value
    ]


def test_each_game_offers_the_strengths_of_its_own_bots(client, alice, bob, monkeypatch):
    client.force_login(alice)
    every = [("easy", "Easy bot"), ("medium", "Medium bot"), ("strong", "Strong bot")]
    for game in ("nmbr9", "nmbrs"):
        page = client.get(reverse("new_solo"), {"game": game}).text
        assert offered_bots(page) == every
    monkeypatch.setattr(find_game("nmbrs"), "bot_strengths", ("medium", "fierce"))
    page = client.get(reverse("new_solo"), {"game": "nmbrs"}).text
    assert offered_bots(page) == [("medium", "Medium bot"), ("fierce", "Fierce bot")]
    assert offered_bots(client.get(reverse("new_solo"), {"game": "nmbr9"}).text) == every
    # A strength the game's bots do not have is refused, and starts nothing.
    refused = client.post(reverse("new_solo"), {"game": "nmbrs", "bot": "strong"})
    assert refused.status_code == 400 and "There is no strong bot" in refused.text
    with pytest.raises(services.MoveRefused):
        services.start_against_bot(alice, "easy", game="nmbrs")
    bot_seats.account("strong")  # a bot of NMBR 9's, not of nmbrs!
    with pytest.raises(services.MoveRefused, match="There is no strong bot"):
        services.create_match(
            alice, game="nmbrs", players=2, time_control="1h", rated=False, invite=["bot-strong"]
        )
    assert not Match.objects.exists()
    assert bot_seats.account("fierce", "nmbrs").username == "bot-fierce"
    with pytest.raises(services.MoveRefused, match="There is no fierce bot"):
        bot_seats.account("fierce", "nmbr9")
