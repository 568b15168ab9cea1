"""Guidance in the game: the rules at hand on every game page, the tutorial offered before a
player's first game against a bot, and what the end of a game offers next."""

import re

from django.urls import reverse

from games import services
from games.models import Match, Puzzle, Seat
from games.services.features import puzzles
from tests.factories import (
    finish,
    finish_against_bot,
    make_match,
    make_puzzles,
    nmbrs_match,
    play,
    play_to_end,
    start_solo,
)


def bot_game(client, user, game: str = "nmbr9") -> Match:
    client.force_login(user)
    response = client.post(reverse("new_solo"), {"game": game, "bot": "easy"})
    assert response.status_code == 302
    return Match.objects.filter(seats__player=user).latest("id")


def rules_at_hand(page: str) -> str:
    found = re.search(r"<details class=\"rules-at-hand[^>]*>.*?</details>", page, re.S)
    assert found is not None, "no rules at hand"
    return found[0]


def test_every_game_page_has_the_rules_at_hand_with_the_tutorial(client, alice, bob):
    solo = start_solo(client, alice)
    rules = rules_at_hand(client.get(solo.get_absolute_url()).text)
    assert "<summary>The rules of NMBR 9 in short</summary>" in rules
    assert "A tile scores its number times its level." in rules
    assert 'href="/learn/nmbr9/" data-tutorial-link' in rules
    assert 'href="/help/nmbr9/" data-help-link' in rules

    match = nmbrs_match(alice, bob)
    rules = rules_at_hand(client.get(match.get_absolute_url()).text)
    assert "The rules of nmbrs! in short" in rules and "Everybody starts with 50 points" in rules
    assert 'href="/learn/nmbrs/" data-tutorial-link' in rules

    german = client.get(solo.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Die Regeln von NMBR 9 in Kürze" in rules_at_hand(german)


def test_a_first_game_against_a_bot_offers_the_tutorial_first(client, alice):
    match = bot_game(client, alice)
    page = client.get(match.get_absolute_url()).text
    assert 'href="/learn/nmbr9/" data-learn-first-link>Learn first<' in page
    assert "data-play-now>Play now<" in page
    # The game is under way all the same: nothing waits for the answer.
    assert match.status == Match.Status.ACTIVE and "data-current" in page

    play(match, alice)
    assert "data-learn-first" not in client.get(match.get_absolute_url()).text
    # Not the first game of NMBR 9 any more: no offer; the first of nmbrs! has one.
    again = bot_game(client, alice)
    assert "data-learn-first" not in client.get(again.get_absolute_url()).text
    first_nmbrs = bot_game(client, alice, "nmbrs")
    page = client.get(first_nmbrs.get_absolute_url()).text
    assert 'href="/learn/nmbrs/" data-learn-first-link' in page


def test_no_tutorial_is_offered_in_a_real_time_game_against_a_bot(client, alice):
    """Its clock would not wait while the player learns."""
    from games.services.match import bot_seats

    match = services.start_realtime(
        [alice, bot_seats.account("medium", "nmbrs")], game="nmbrs", speed="60s"
    )
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert "data-learn-first" not in page and "data-rules-at-hand" in page


def test_no_tutorial_is_offered_in_a_match_between_people(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert "data-learn-first" not in page and "data-rules-at-hand" in page
    services.resign(match.pk, alice)


def what_next(page: str) -> str:
    found = re.search(r'<div class="what-next" data-what-next>.*?</div>', page, re.S)
    assert found is not None, "nothing offered next"
    return found[0]


def test_the_end_of_a_bot_game_offers_another_against_the_same_bot(client, alice):
    client.force_login(alice)
    client.post(reverse("new_solo"), {"game": "nmbr9", "bot": "easy", "fillers": "on"})
    match = Match.objects.get()
    finish_against_bot(match, alice)
    offered = what_next(client.get(match.get_absolute_url()).text)
    assert "data-again-bot" in offered and "data-same-match" not in offered
    assert 'href="/learn/nmbrs/" data-other-tutorial>Learn to play nmbrs!<' in offered
    assert 'href="/daily/" data-daily-link' in offered

    response = client.post(reverse("new_solo"), {"again": match.pk})
    again = Match.objects.latest("id")
    assert response.status_code == 302 and response.url == again.get_absolute_url()
    assert again.pk != match.pk and again.options == match.options
    bot = Seat.objects.get(match=again, index=1)
    assert (bot.bot, bot.player.username) == ("easy", "bot-easy")


def test_the_end_of_a_match_offers_a_new_one_with_the_same_players_and_options(client, alice, bob):
    match = make_match(alice, bob, pace="free", time_control="3d", rated=False)
    play_to_end(match, [alice, bob])
    client.force_login(alice)
    offered = what_next(client.get(match.get_absolute_url()).text)
    link = re.search(r'href="([^"]+)" data-same-match', offered)
    assert link is not None and "data-again-bot" not in offered
    form = client.get(link[1].replace("&amp;", "&"))
    assert form.status_code == 200
    assert 'name="invite" value="bob"' in form.text
    assert re.search(r'<option value="3d" selected>', form.text)
    assert re.search(r'name="pace" value="free"[^>]* checked', form.text)
    assert not re.search(r'name="rated"[^>]* checked', form.text)

    mine = Match.objects.filter(seats__player=bob).exclude(seats__player=alice)
    assert not mine.exists()
    refused = client.get(reverse("new_match"), {"again": 999999})
    assert refused.status_code == 400
    assert "There is no match of yours with this number." in refused.text
    assert Match.objects.count() == 1


def test_a_finished_puzzle_shows_its_par_beside_the_score(client, alice):
    (puzzle,) = make_puzzles(4242)
    Puzzle.objects.filter(pk=puzzle.pk).update(par=57)
    match = puzzles.start_puzzle(alice, puzzle)
    finish(match, alice)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    score = re.search(r'<p class="final-score">.*?</p>', page, re.S)
    assert score is not None and "data-final-score" in score[0]
    assert "Par: <strong data-par>57</strong>" in score[0]
    assert 'href="/daily/" data-daily-link' in what_next(page)


def test_a_finished_daily_says_its_par_is_being_computed_and_offers_no_daily_again(client, alice):
    puzzle = puzzles.publish_daily()
    Puzzle.objects.filter(pk=puzzle.pk).update(par=None)
    match = puzzles.play_daily(alice)
    assert match.daily
    finish(match, alice)
    client.force_login(alice)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    score = re.search(r'<p class="final-score">.*?</p>', page, re.S)
    assert score is not None and "data-final-score" in score[0]
    assert "Par: wird berechnet." in score[0]
    assert "data-daily-link" not in what_next(page)
