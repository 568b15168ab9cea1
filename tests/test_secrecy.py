"""A puzzle's order stays secret across every game played on it, free pace hides how far
the others have got, and spectators see what every player may see and nothing more: one test
per way it used to leak, through the views as a user would."""

import re
from collections import Counter
from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.db.models import F
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import ChallengeOffer, DailyResult, Match, Puzzle
from games.nmbr9 import Board
from games.nmbr9.game import DECKS
from games.services.features import puzzles
from games.web.nmbr9.svg import board_svg
from tests.factories import (
    challenge,
    finish,
    game_of,
    hidden,
    make_match,
    make_puzzles,
    play,
    seat_of,
    todays_daily,
)

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def finished_daily_of(player) -> Match:
    match = puzzles.play_daily(player)
    finish(match, player)
    match.refresh_from_db()
    assert match.is_finished and DailyResult.objects.filter(match=match).exists()
    return match


# ------------------------------------------------------------------ the daily puzzle


def test_another_players_finished_daily_game_and_replay_are_hidden_until_you_finish(
    client, alice, bob
):
    todays_daily()
    bobs = finished_daily_of(bob)
    client.force_login(alice)
    for url in (bobs.get_absolute_url(), reverse("replay", args=[bobs.pk])):
        for extra in ({}, HTMX, {"HTTP_HX_REQUEST": "true", "QUERY_STRING": "poll=x"}):
            response = client.get(url, **extra)
            assert hidden(response), (url, response.status_code)
            assert "daily puzzle" in response.text
            assert 'data-number="' not in response.text
    finished_daily_of(alice)
    assert client.get(bobs.get_absolute_url()).status_code == 200
    assert client.get(reverse("replay", args=[bobs.pk])).status_code == 200


def test_logged_out_visitors_cannot_see_todays_daily_games(client, bob):
    todays_daily()
    bobs = finished_daily_of(bob)
    assert hidden(client.get(bobs.get_absolute_url()))
    assert hidden(client.get(reverse("replay", args=[bobs.pk])))


def test_the_daily_games_are_public_once_its_day_is_over(client, alice, bob):
    puzzle = todays_daily()
    bobs = finished_daily_of(bob)
    Puzzle.objects.filter(pk=puzzle.pk).update(daily_on=puzzles.today() - timedelta(days=1))
    for user in (alice, None):
        client.logout()
        if user:
            client.force_login(user)
        assert client.get(bobs.get_absolute_url()).status_code == 200
        assert client.get(reverse("replay", args=[bobs.pk])).status_code == 200


def test_practising_todays_daily_before_the_counted_attempt_is_refused(client, alice):
    puzzle = todays_daily()
    client.force_login(alice)
    response = client.post(reverse("play_puzzle", args=[puzzle.pk]))
    assert hidden(response)
    assert not Match.objects.exists()
    client.post(reverse("play_daily"))  # the counted attempt starts, but is not finished
    assert hidden(client.post(reverse("play_puzzle", args=[puzzle.pk])))
    assert Match.objects.count() == 1
    finish(Match.objects.get(), alice)
    response = client.post(reverse("play_puzzle", args=[puzzle.pk]))
    assert response.status_code == 302 and Match.objects.count() == 2


def test_a_daily_puzzle_dated_in_the_future_cannot_be_played_or_seen(client, alice):
    (puzzle,) = make_puzzles(77)
    Puzzle.objects.filter(pk=puzzle.pk).update(daily_on=puzzles.today() + timedelta(days=1))
    client.force_login(alice)
    assert client.get(reverse("puzzle", args=[puzzle.pk])).status_code == 404
    response = client.post(reverse("play_puzzle", args=[puzzle.pk]))
    assert hidden(response) and "not published yet" in response.text
    assert not Match.objects.exists()


def test_a_daily_attempt_finished_after_its_day_is_over_does_not_count(client, alice, bob):
    puzzle = todays_daily()
    bobs = finished_daily_of(bob)
    attempt = puzzles.play_daily(alice)
    play(attempt, alice)
    # Midnight passes while alice's attempt is open: the puzzle's games are public now ...
    Puzzle.objects.filter(pk=puzzle.pk).update(daily_on=puzzles.today() - timedelta(days=1))
    Match.objects.filter(pk=attempt.pk).update(started=F("started") - timedelta(days=1))
    client.force_login(alice)
    assert client.get(reverse("replay", args=[bobs.pk])).status_code == 200
    # ... so what she finishes now is practice: no result for the day, no streak.
    finish(attempt, alice)
    attempt.refresh_from_db()
    assert attempt.is_finished
    assert not DailyResult.objects.filter(player=alice).exists()
    assert puzzles.streak(alice) == 0
    page = client.get(attempt.get_absolute_url()).text
    assert "data-practice" in page and "See today's leaderboard" not in page
    bob_client = Client()
    bob_client.force_login(bob)
    page = bob_client.get(bobs.get_absolute_url()).text
    assert "data-practice" not in page and "See today's leaderboard" in page


def test_two_requests_for_the_daily_at_once_both_lead_to_the_one_attempt(monkeypatch, alice):
    todays_daily()
    first = puzzles.play_daily(alice)
    # The second request looked for an open attempt before the first one's was stored.
    monkeypatch.setattr(
        puzzles,
        "daily_attempt",
        lambda *args, _real=puzzles.daily_attempt: monkeypatch.undo() or None,
    )
    assert puzzles.play_daily(alice) == first
    assert Match.objects.filter(daily=True).count() == 1


def test_one_unfinished_daily_attempt_per_player(alice):
    todays_daily()
    first = puzzles.play_daily(alice)
    assert puzzles.play_daily(alice) == first
    with pytest.raises(IntegrityError):
        puzzles.start_puzzle(alice, first.puzzle, daily=True)
    assert Match.objects.filter(daily=True).count() == 1


# ------------------------------------------------------------------ challenges


def test_practising_a_challenges_puzzle_is_refused_until_your_game_in_it_is_over(
    client, alice, bob
):
    match = challenge(alice, bob)
    puzzle = match.puzzle
    client.force_login(bob)  # invited, has not answered yet
    assert hidden(client.post(reverse("play_puzzle", args=[puzzle.pk])))
    services.join(match.pk, bob)
    for user in (alice, bob):
        client.force_login(user)
        response = client.post(reverse("play_puzzle", args=[puzzle.pk]))
        assert hidden(response) and "challenge" in response.text
    assert Match.objects.filter(kind=Match.Kind.PUZZLE).count() == 0
    finish(match, alice)
    client.force_login(alice)
    assert client.post(reverse("play_puzzle", args=[puzzle.pk])).status_code == 302
    client.force_login(bob)
    assert hidden(client.post(reverse("play_puzzle", args=[puzzle.pk])))


def test_the_puzzles_of_an_open_offer_cannot_be_practised_by_the_challenger(client, alice):
    make_puzzles(701, 702, 703)
    offer = puzzles.offer_challenge(
        alice, invite=[], players=2, open=True, rated=True, time_control="1d"
    )
    client.force_login(alice)
    for puzzle in offer.puzzles:
        assert hidden(client.post(reverse("play_puzzle", args=[puzzle.pk])))
    ChallengeOffer.objects.filter(pk=offer.pk).update(created=timezone.now() - timedelta(days=4))
    assert client.post(reverse("play_puzzle", args=[offer.first_id])).status_code == 302


def test_nobody_may_join_a_challenge_on_a_puzzle_they_have_played(client, alice, bob, carol):
    make_puzzles(611, 612, 613)
    offer = puzzles.offer_challenge(
        alice, invite=[], players=2, open=True, rated=True, time_control="1d"
    )
    match = puzzles.pick_challenge(offer.pk, alice, offer.first_id)
    # Played before the challenge existed (as the issue found it: practice was open then).
    Match.objects.filter(pk=match.pk).update(puzzle=None)
    practice = puzzles.start_puzzle(bob, match.puzzle)
    Match.objects.filter(pk=match.pk).update(puzzle=practice.puzzle)
    client.force_login(bob)
    response = client.post(reverse("join", args=[match.pk]))
    assert response.status_code == 400 and "played this puzzle before" in response.text
    assert not match.seats.filter(player=bob).exists()
    client.force_login(carol)
    assert client.post(reverse("join", args=[match.pk])).status_code == 302
    assert match.seats.filter(player=carol).exists()


def test_the_puzzles_of_an_offer_and_of_a_waiting_challenge_cannot_be_practised_by_anybody(
    client, alice, bob, carol
):
    make_puzzles(621, 622, 623)
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    for user in (bob, carol):  # the invited player, and anybody who might join
        client.force_login(user)
        for puzzle in offer.puzzles:
            response = client.post(reverse("play_puzzle", args=[puzzle.pk]))
            assert hidden(response) and "held for a challenge" in response.text
    open_offer = puzzles.offer_challenge(
        alice, invite=[], players=2, open=True, rated=True, time_control="1d"
    )
    match = puzzles.pick_challenge(open_offer.pk, alice, open_offer.second_id)
    client.force_login(carol)
    assert hidden(client.post(reverse("play_puzzle", args=[match.puzzle_id])))
    assert not Match.objects.filter(kind=Match.Kind.PUZZLE).exists()
    services.join(match.pk, bob)  # the seats are taken: nobody else can join any more
    assert client.post(reverse("play_puzzle", args=[match.puzzle_id])).status_code == 302


def test_a_puzzle_played_since_it_was_offered_cannot_be_picked_nor_an_old_offer(alice, bob):
    from games.services.match import lobby

    make_puzzles(631, 632, 633, 634, 635)
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    # An attempt that got in anyway (practice is refused while the offer holds the puzzle).
    lobby.start_solo(bob, kind=Match.Kind.PUZZLE, puzzle=offer.first)
    with pytest.raises(services.MoveRefused, match="played since it was offered"):
        puzzles.pick_challenge(offer.pk, alice, offer.first_id)
    assert puzzles.pick_challenge(offer.pk, alice, offer.second_id).puzzle_id == offer.second_id
    old = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    ChallengeOffer.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(days=4))
    with pytest.raises(services.MoveRefused, match="expired"):
        puzzles.pick_challenge(old.pk, alice, old.first_id)
    # Its puzzles are free again: offered anew, or practised.
    assert old.first in puzzles.unused_puzzles() and old.second in puzzles.unused_puzzles()


def test_actions_on_a_game_whose_puzzle_is_secret_answer_the_hidden_page(client, alice, bob):
    todays_daily()
    bobs = finished_daily_of(bob)
    client.force_login(alice)
    for name, data in (
        ("play", {"x": "abc"}),
        ("play", {"number": "1", "x": "0", "y": "0", "rotation": "0", "ply": "0"}),
        ("join", {}),
        ("cancel", {}),
        ("decline", {}),
        ("rematch", {}),
        ("resign", {}),
        ("extend", {}),
    ):
        response = client.post(reverse(name, args=[bobs.pk]), data)
        assert response.status_code in (403, 404), (name, response.status_code)
        assert 'data-number="' not in response.text


def test_other_games_on_a_challenges_puzzle_are_hidden_from_its_players(client, alice, bob, carol):
    match = challenge(alice, bob)
    services.join(match.pk, bob)
    puzzle = match.puzzle
    carols = puzzles.start_puzzle(carol, puzzle)
    finish(carols, carol)
    client.force_login(bob)
    assert hidden(client.get(carols.get_absolute_url()))
    assert hidden(client.get(reverse("replay", args=[carols.pk])))
    client.logout()
    assert hidden(client.get(carols.get_absolute_url()))  # live for somebody: hidden to visitors
    finish(match, bob)
    client.force_login(bob)
    assert client.get(carols.get_absolute_url()).status_code == 200


def test_a_challenge_only_offers_puzzles_nobody_has_played_and_no_daily(alice, bob, carol):
    made = make_puzzles(801, 802, 803, 804, 805, 806, 807)
    puzzles.start_puzzle(bob, made[0])
    puzzles.start_puzzle(carol, made[1])  # not in the challenge, but she might join it
    Puzzle.objects.filter(pk=made[2].pk).update(daily_on=puzzles.today() - timedelta(days=3))
    for _ in range(20):
        offer = puzzles.offer_challenge(
            alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
        )
        assert {offer.first_id, offer.second_id} <= {p.pk for p in made[3:]}
        held = puzzles.offer_challenge(
            alice, invite=[], players=2, open=True, rated=True, time_control="1d"
        )
        assert {held.first_id, held.second_id} <= {p.pk for p in made[3:]}
        assert not {held.first_id, held.second_id} & {offer.first_id, offer.second_id}
        ChallengeOffer.objects.filter(pk__in=[offer.pk, held.pk]).delete()


def test_an_offered_puzzle_is_not_published_as_the_daily(alice):
    made = make_puzzles(901, 902, 903)
    offer = puzzles.offer_challenge(
        alice, invite=[], players=2, open=True, rated=True, time_control="1d"
    )
    daily = puzzles.publish_daily()
    assert daily.pk not in (offer.first_id, offer.second_id)
    assert daily.pk in {p.pk for p in made}


# ------------------------------------------------------------------ free pace


def test_free_pace_log_does_not_tell_how_far_a_player_who_resigned_had_got(client, alice, bob):
    match = make_match(alice, bob, pace="free", time_control="1d")
    for _ in range(6):
        play(match, bob)
    services.resign(match.pk, bob)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert "bob resigned." in page
    rounds = re.findall(r'log-when">Round (\d+)</span> bob resigned', page)
    assert rounds == ["1"]


def test_free_pace_polling_answers_only_what_the_viewer_may_see(client, alice, bob):
    match = make_match(alice, bob, pace="free", time_control="1d")
    play(match, alice)  # alice in round 2, bob in round 1
    client.force_login(alice)

    def version() -> str:
        html = client.get(match.get_absolute_url()).text
        return re.search(r'data-version="([\w-]+)"', html).group(1)

    play(match, bob)  # now both have placed one: alice may see bob's first tile
    seen = version()
    assert seen
    for _ in range(5):
        play(match, bob)  # bob goes far ahead; alice may not learn it
        assert version() == seen
        url = match.get_absolute_url()
        assert client.get(url, {"poll": seen}, **HTMX).status_code == 204
    for total in range(0, 41):
        response = client.get(url, {"poll": f"active-pp-{total}"}, **HTMX)
        assert response.status_code == 200
    play(match, alice)
    assert version() != seen


def test_free_pace_move_forms_count_only_the_viewers_own_moves(client, alice, bob):
    match = make_match(alice, bob, pace="free", time_control="1d")
    client.force_login(alice)
    url = match.get_absolute_url()

    def form_ply() -> set[str]:
        return set(re.findall(r'name="ply" value="(\d+)"', client.get(url).text))

    def refusals() -> list[tuple[int, bool]]:
        """The answers to a move that cannot be made (not her tile), sent with every count."""
        answers = []
        for count in range(0, 8):
            data = {"number": "9", "x": "0", "y": "0", "rotation": "0", "ply": str(count)}
            response = client.post(reverse("play", args=[match.pk]), data)
            answers.append((response.status_code, "out of date" in response.text))
        return answers

    assert form_ply() == {"0"}
    before = refusals()
    assert before[0] == (400, False) and before[1:] == [(400, True)] * 7
    for _ in range(5):
        play(match, bob)
        assert form_ply() == {"0"}  # bob's five moves leave alice's page as it was
    assert refusals() == before  # and what a refused move says
    play(match, alice)
    assert form_ply() == {"1"}


def test_a_free_pace_opponent_ahead_is_not_marked_to_move(client, alice, bob):
    match = make_match(alice, bob, pace="free", time_control="1d")
    for _ in range(20):
        play(match, bob)  # bob is done; alice has not started
    assert seat_of(match, bob).deadline is None
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    display = re.search(r'data-opponent="bob">.*?</li>', page, re.S).group(0)
    assert "to move" not in display and "20 tiles" not in display


# ------------------------------------------------------------------ markup


def test_board_markup_lists_tiles_by_level_and_position_never_in_placement_order():
    placements = ["9@6,0r0", "5@3,0r0", "3@0,0r0", "1@2,0r1"]
    svg = board_svg(Board(placements))
    assert re.findall(r'data-number="(\d)"', svg) == ["3", "5", "9", "1"]
    again = board_svg(Board(["3@0,0r0", "5@3,0r0", "9@6,0r0", "1@2,0r1"]))
    assert svg == again


# ------------------------------------------------------------------ spectators

TURN = {**HTMX, "HTTP_HX_TARGET": "turn"}
PLAY = {**HTMX, "HTTP_HX_TARGET": "play"}


def spectators(client, user) -> list[Client]:
    """A signed-in player who is not in the match, and a visitor."""
    client.force_login(user)
    return [client, Client()]


def play_section(html: str) -> str:
    """The page's play area and what follows it (the chat), without the forms' tokens (each
    answer masks the token anew)."""
    shown = html[html.index('<section id="play"') : html.index("</main>")]
    return re.sub(r'name="csrfmiddlewaretoken" value="\w+"', 'name="csrfmiddlewaretoken"', shown)


def seen_by(viewer, match, language: str) -> dict[str, str]:
    """What a spectator gets of the match on each path: the page, its partials, a poll."""
    url, asked = match.get_absolute_url(), {"HTTP_ACCEPT_LANGUAGE": language}
    page = play_section(viewer.get(url, **asked).text)
    version = re.search(r'data-version="([\w-]+)"', page).group(1)
    seen = {
        "page": page,
        "play": viewer.get(url, **PLAY, **asked).text,
        "turn": viewer.get(url, **TURN, **asked).text,
        "poll": viewer.get(url, {"poll": "active-0"}, **HTMX, **asked).text,
        "lobby": re.search(
            rf'data-watch="{match.pk}".*?</li>', viewer.get(reverse("lobby"), **asked).text, re.S
        ).group(0),
    }
    assert viewer.get(url, {"poll": version}, **HTMX, **asked).status_code == 204
    return seen


@pytest.mark.parametrize("language", ["en", "de"])
def test_free_pace_spectators_see_each_display_only_up_to_the_round_all_have_reached(
    client, alice, bob, carol, language
):
    match = make_match(alice, bob, pace="free", time_control="1d")
    play(match, alice)
    play(match, bob)
    viewers = spectators(client, carol)
    before = [seen_by(viewer, match, language) for viewer in viewers]
    for _ in range(5):
        play(match, alice)  # alice goes far ahead: nothing a spectator sees changes
        assert [seen_by(viewer, match, language) for viewer in viewers] == before
    play(match, bob)  # both have reached round 3 now
    after = [seen_by(viewer, match, language) for viewer in viewers]
    round_3 = "Round <strong>3</strong>" if language == "en" else "Runde <strong>3</strong>"
    for seen, seen_before in zip(after, before, strict=True):
        assert round_3 in seen["page"] and round_3 not in seen_before["page"]
        assert re.findall(r"data-standing>([^<]*)<", seen["lobby"]) == [
            "Round 3 of 20" if language == "en" else "Runde 3 von 20"
        ]
        tiles = re.findall(r"data-opponent-score>\d+</span> \w+ · (\d+)", seen["page"])
        assert tiles == ["2"]  # bob's two tiles, as every player has seen them
        own = re.search(r"data-own-board>(.*?)</div>", seen["page"], re.S).group(1)
        assert own.count('class="tile level-') == 2  # alice's first two of her seven


def test_free_pace_spectators_are_not_told_how_far_a_player_who_resigned_had_got(
    client, alice, bob, carol
):
    match = make_match(alice, bob, pace="free", time_control="1d")
    for _ in range(6):
        play(match, bob)
    services.resign(match.pk, bob)
    for viewer in spectators(client, carol):
        page = viewer.get(match.get_absolute_url()).text
        assert "bob resigned." in page
        assert re.findall(r'log-when">Round (\d+)</span> bob resigned', page) == ["1"]


PLUSPLUS = {"start_tiles": True, "fillers": True, "specials": ["reserve", "one"]}


def without_waiting(section: str) -> str:
    """A spectator's play area without what says who still has to move this round (public
    in rounds pace) and the version, which changes with it."""
    waiting = r'<div class="turn waiting" data-watching-turn>.*?</div>'
    section = re.sub(waiting, "", section, count=1, flags=re.S)
    return re.sub(r"(active|finished)-[0-9a-f]{16}", "", section)


@pytest.mark.parametrize("options", [{}, PLUSPLUS], ids=["base", "plusplus"])
@pytest.mark.parametrize("language", ["en", "de"])
def test_rounds_pace_spectators_see_the_card_showing_and_never_the_next(
    client, alice, bob, carol, options, language
):
    match = make_match(alice, bob, pace="rounds", time_control="1d", **options)
    play(match, alice)
    play(match, bob)
    cards = game_of(match).deal.cards
    for viewer in spectators(client, carol):
        seen = seen_by(viewer, match, language)
        for path in ("page", "play", "poll"):
            showing = re.findall(r"data-showing>(\d)<", seen[path])
            assert showing == [str(cards[1])], path  # round 2's card, shown to every player
            supply = dict(re.findall(r'data-supply="(\d)".*?×(\d+)<', seen[path], re.S))
            left = Counter(DECKS["base"]) - Counter(cards[:2])  # not round 3's
            assert supply == {str(n): str(left[n]) for n in range(10)}, path
        assert 'name="ply"' not in seen["turn"] and "data-ghost" not in seen["turn"]
    viewers = spectators(client, carol)
    before = [without_waiting(seen_by(v, match, language)["page"]) for v in viewers]
    if options:
        services.play(match.pk, alice, "reserve", 1)
    else:
        play(match, alice)  # her round-2 tile is shown once bob has placed his
    after = [without_waiting(seen_by(v, match, language)["page"]) for v in viewers]
    assert after == before
    play(match, bob)
    for viewer in spectators(client, carol):
        page = seen_by(viewer, match, language)["page"]
        assert re.findall(r"data-showing>(\d)<", page) == [str(cards[2])]
        if options:
            reserved = "alice reserved a tile." if language == "en" else "alice hat ein Plättchen"
            assert reserved in page and f"reserved the {cards[1]}" not in page
    if options:
        client.force_login(alice)
        assert f"alice reserved the {cards[1]}." in client.get(match.get_absolute_url()).text


@pytest.mark.parametrize("language", ["en", "de"])
def test_nmbrs_spectators_never_see_a_card_of_a_hand_or_of_the_deck(
    client, alice, bob, carol, language
):
    from tests.factories import nmbrs_match

    match = nmbrs_match(alice, bob)
    users = {0: alice, 1: bob}
    checked = 0
    for step in range(40):
        record = services.load(match)
        if record.state.over:
            break
        player = record.state.to_move
        seat = record.seats[player]
        text = str(record.rules.auto_move(record.state, player))
        services.play(match.pk, users[player], text, record.made_by(seat))
        if step % 10:
            continue
        state = services.load(match).state
        secret = set(state.deck).union(*state.hands)
        public = {card for cards in state.table.values() for card, _number in cards}
        public |= {state.top} if state.top else set()
        for viewer in spectators(client, carol):
            for path, html in seen_by(viewer, match, language).items():
                shown = set(re.findall(r'data-card="([^"]+)"', html))
                assert shown <= public and not shown & secret, path
                assert 'name="move"' not in html and "data-pick" not in html, path
            page = viewer.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).text
            cards_word = "cards" if language == "en" else "Karten"
            for p, hand in enumerate(state.hands):
                size = re.search(
                    rf'data-player="{users[p].username}".*?(\d+) {cards_word}', page, re.S
                )
                assert int(size.group(1)) == len(hand)
        checked += 1
    assert checked >= 3
