"""Live duplicate tournaments: every entrant's game on one deal held in step, a step dealt to
all at once when the last awaited move is made or its time is up (the fallback for those
behind, out after two missed in a row), the next game, the finish and its standings; the
step not dealt is a secret to every reader."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Entry, Match, Puzzle, Seat, Tournament
from games.services import MoveRefused
from games.services.features import live_duplicate
from games.services.match import lockstep
from tests.factories import break_over, play
from tests.factories import live_started as started

pytestmark = pytest.mark.django_db(transaction=True)


def game_of(tournament, player, number: int = 1) -> Match:
    return Match.objects.get(
        puzzle__tournament=tournament, puzzle__number=number, seats__player=player
    )


def deal(tournament, number: int = 1) -> Puzzle:
    return Puzzle.objects.get(tournament=tournament, number=number)


def test_the_start_deals_the_first_step_to_every_entrant_at_once(alice, bob, carol):
    tournament = started(alice, bob, carol)
    first = deal(tournament)
    assert tournament.status == Tournament.Status.RUNNING and first.dealt == 1
    assert first.due is not None and first.due <= timezone.now() + timedelta(seconds=15)
    for player in (alice, bob, carol):
        mv = services.view_match(game_of(tournament, player).pk, player)
        assert mv.view.cards and mv.view.decision is not None
    assert len({game_of(tournament, p).seed for p in (alice, bob, carol)}) == 1  # one deal


def test_a_player_ahead_waits_knowing_nothing_of_the_next_card(alice, bob):
    tournament = started(alice, bob)
    mine = game_of(tournament, alice)
    play(mine, alice)
    mv = services.view_match(mine.pk, alice)
    assert mv.view.cards == () and mv.view.decision is None
    state = services.load(Match.objects.get(pk=mine.pk)).state
    next_card = state.deal.cards[1]
    assert sum(mv.view.supply.values()) == sum(state.view(0).supply.values()) + 1
    with pytest.raises(MoveRefused) as refused:
        services.play(mine.pk, alice, f"place {next_card}@5,5r0", 1)
    assert refused.value.code == lockstep.NOT_DEALT
    assert deal(tournament).dealt == 1
    # nor may the page draw it: neither a preview nor a draft shows the next card
    page = services.view_match(mine.pk, alice)
    assert page.view.cards == ()


def test_the_last_move_awaited_deals_the_next_step_to_all(alice, bob, carol):
    tournament = started(alice, bob, carol)
    for player in (alice, bob):
        play(game_of(tournament, player), player)
    assert deal(tournament).dealt == 1
    play(game_of(tournament, carol), carol)
    assert deal(tournament).dealt == 2
    for player in (alice, bob, carol):
        assert services.view_match(game_of(tournament, player).pk, player).view.cards


def test_when_the_time_is_up_the_fallback_is_made_and_two_missed_put_a_player_out(alice, bob):
    tournament = started(alice, bob)
    play(game_of(tournament, alice), alice)
    Puzzle.objects.filter(pk=deal(tournament).pk).update(due=timezone.now())
    assert live_duplicate.run_due()["close"] == 1
    theirs = Seat.objects.get(match=game_of(tournament, bob))
    assert theirs.strikes == 1 and theirs.state == Seat.State.PLAYING
    assert list(theirs.moves.values_list("auto", "timed_out")) == [(True, True)]
    assert deal(tournament).dealt == 2
    play(game_of(tournament, alice), alice)
    Puzzle.objects.filter(pk=deal(tournament).pk).update(due=timezone.now())
    live_duplicate.run_due()
    theirs.refresh_from_db()
    assert theirs.state == Seat.State.RESIGNED
    assert deal(tournament).dealt == 3  # the others go on without them


def test_a_move_of_their_own_clears_a_players_missed_steps(alice, bob):
    tournament = started(alice, bob)
    play(game_of(tournament, alice), alice)
    Puzzle.objects.filter(pk=deal(tournament).pk).update(due=timezone.now())
    live_duplicate.run_due()
    play(game_of(tournament, bob), bob)
    assert Seat.objects.get(match=game_of(tournament, bob)).strikes == 0


def test_closing_a_round_twice_makes_one_fallback(alice, bob):
    tournament = started(alice, bob)
    play(game_of(tournament, alice), alice)
    first = deal(tournament)
    Puzzle.objects.filter(pk=first.pk).update(due=timezone.now())
    assert live_duplicate.close_round(first.pk) == 1
    assert live_duplicate.close_round(first.pk) == 0
    assert Match.objects.get(pk=game_of(tournament, bob).pk).moves.count() == 1


def test_games_follow_one_another_and_the_finish_ranks_the_entrants(alice, bob):
    tournament = started(alice, bob, games=2)
    for number in (1, 2):
        while deal(tournament, number).dealt is not None:
            for player in (alice, bob):
                match = game_of(tournament, player, number)
                if match.status == Match.Status.ACTIVE:
                    play(match, player)
        assert deal(tournament, number).closes is not None
        if number == 1:
            # a pause for all to see how it ended: the next game is dealt after it
            tournament.refresh_from_db()
            assert tournament.status == Tournament.Status.RUNNING
            coming = live_duplicate.next_deal(tournament)
            assert coming is not None and coming[0] == 2
            assert coming[1] == deal(tournament).closes + live_duplicate.BREAK
            assert live_duplicate.run_due()["deal"] == 0
            assert not Puzzle.objects.filter(tournament=tournament, number=2).exists()
            assert not live_duplicate.work_due(timezone.now())  # the clock waits too
            assert live_duplicate.work_due(coming[1])  # and hands it over once due
            break_over(tournament)
            assert live_duplicate.run_due()["deal"] == 0  # dealt once
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = list(Entry.objects.filter(tournament=tournament).order_by("rank"))
    assert [e.played for e in entries] == [2, 2] and entries[0].rank == 1
    scores = {p.pk: 0 for p in (alice, bob)}
    for match in Match.objects.filter(puzzle__tournament=tournament):
        seat = match.seats.get()
        scores[seat.player_id] += seat.score
    assert {e.player_id: e.score for e in entries} == scores


def test_others_see_nothing_of_a_live_game_while_it_is_played(client, alice, bob, carol):
    tournament = started(alice, bob)
    mine = game_of(tournament, alice)
    client.force_login(carol)
    assert client.get(mine.get_absolute_url()).status_code in (403, 404)
    client.force_login(bob)
    assert client.get(mine.get_absolute_url()).status_code in (403, 404)


def test_the_page_of_a_live_game_follows_its_stream_and_shows_the_leaders(client, alice, bob):
    tournament = started(alice, bob)
    mine = game_of(tournament, alice)
    client.force_login(alice)
    html = client.get(mine.get_absolute_url()).content.decode()
    assert reverse("tournament", args=[tournament.pk]) in html
    assert "data-live-leaders" in html and "bob" in html
    play(mine, alice)
    waiting = client.get(mine.get_absolute_url()).content.decode()
    assert "data-live-waiting" in waiting
    # the round's clock is named so that it still reads well once it says "time is up"
    line = waiting[waiting.index("data-live-waiting") :]
    line = line[: line.index("</p>")]
    assert "Time left in this round: <time" in line and 'data-up="time is up"' in line
    # the words and the clock one item of the line: they wrap together
    assert '<span class="round-time">Time left in this round: <time' in line


def test_the_panel_shows_the_leaders_and_the_readers_own_place_ties_shared(
    alice, bob, carol, monkeypatch
):
    tournament = started(alice, bob, carol)
    for player, score in ((alice, 10), (bob, 10), (carol, 5)):
        Seat.objects.filter(match=game_of(tournament, player)).update(score=score)
    monkeypatch.setattr(live_duplicate, "LEADERS", 1)

    def panel(player):
        shown = live_duplicate.panel(game_of(tournament, player), player, waiting=False)
        own = shown["live_own"]
        lines = [(place, line.username) for place, line in shown["live_leaders"]]
        return lines, own and (own[0], own[1].username), shown["live_players"]

    assert panel(alice) == ([(1, "alice")], None, 3)
    assert panel(bob) == ([(1, "alice")], (1, "bob"), 3)  # a tie shares the place
    assert panel(carol) == ([(1, "alice")], (3, "carol"), 3)


def test_the_leaders_are_read_once_a_second_but_the_readers_own_score_is_current(
    alice, bob, carol, django_assert_max_num_queries
):
    """Every entrant's page asks for the leaders at once when a step is dealt: a process
    reads them once a second per step; the reader's own score is their seat's, at once."""
    tournament = started(alice, bob, carol)
    deal = Puzzle.objects.get(tournament=tournament)
    for player, score in ((alice, 10), (bob, 7), (carol, 5)):
        Seat.objects.filter(match=game_of(tournament, player)).update(score=score)
    first = live_duplicate.leaders(deal, alice, 2)
    assert [(place, line.username) for place, line in first[0]] == [(1, "alice"), (2, "bob")]
    Seat.objects.filter(match=game_of(tournament, carol)).update(score=12)
    with django_assert_max_num_queries(0):
        kept = live_duplicate.leaders(deal, bob, 2)
    assert [line.username for _, line in kept[0]] == ["alice", "bob"]  # carol's 12: not yet
    mine = Seat.objects.get(match=game_of(tournament, carol))
    lines, own, players = live_duplicate.leaders(deal, carol, 2, mine)
    assert [(place, line.username, line.score) for place, line in lines] == [
        (1, "carol", 12),
        (2, "alice", 10),
    ]
    assert own is None and players == 3
    live_duplicate.ranked_orders.clear()  # as a second later
    assert live_duplicate.leaders(deal, bob, 1)[0][0][1].username == "carol"


def test_a_live_tournament_needs_a_real_time_speed(alice):
    with pytest.raises(MoveRefused):
        live_duplicate.create(
            alice,
            name="Slow",
            game="nmbr9",
            games=1,
            speed="1d",
            starts=timezone.now() + timedelta(hours=1),
            open=True,
        )


def test_a_real_time_swiss_is_no_live_duplicate_for_the_clock_or_its_page(
    client, alice, bob, carol
):
    """A swiss at 15 s a move is live too, and has no deals: the clock's work neither deals
    it a game (which failed on every tick and kept the rounds of the live duplicates due
    from closing) nor its page shows a live duplicate's board."""
    from tests.factories import started_swiss

    swiss = started_swiss([alice, bob], pace="15s")
    assert swiss.mode == Tournament.Mode.LIVE
    tournament = started(alice, carol)  # its first deal comes after the swiss's
    due = deal(tournament).pk
    Puzzle.objects.filter(pk=due).update(due=timezone.now() - timedelta(seconds=1))
    done = live_duplicate.run_due()
    assert done["deal"] == 0 and done["close"]  # the duplicate's round closed
    assert not Puzzle.objects.filter(tournament=swiss).exists()
    assert not live_duplicate.deal_next(swiss.pk)
    client.force_login(alice)
    page = client.get(reverse("tournament", args=[swiss.pk])).content.decode()
    assert "data-live-board" not in page and "being dealt" not in page
    assert client.get(reverse("tournament_live", args=[swiss.pk])).status_code == 404


def test_a_game_over_leads_back_to_the_tournament_and_says_who_left_early(client, alice, bob):
    tournament = started(alice, bob)
    play(game_of(tournament, alice), alice)
    for _ in range(2):  # bob misses two steps in a row: out of the game
        Puzzle.objects.filter(pk=deal(tournament).pk).update(due=timezone.now())
        live_duplicate.run_due()
        if game_of(tournament, alice).status == Match.Status.ACTIVE:
            play(game_of(tournament, alice), alice)
    theirs = game_of(tournament, bob)
    assert theirs.status == Match.Status.FINISHED
    client.force_login(bob)
    page = client.get(theirs.get_absolute_url()).content.decode()
    assert "data-left-early" in page and "data-back-to-tournament" in page
    assert 'class="live-round-time"' not in page  # the round's time is not this game's
    assert "data-what-next" not in page and "data-daily-link" not in page  # the way on


def test_a_player_who_leaves_is_out_of_the_game_now_and_dealt_no_more(alice, bob, carol):
    tournament = started(alice, bob, carol, games=2)
    for player in (alice, bob):
        play(game_of(tournament, player), player)
    assert deal(tournament).dealt == 1  # carol awaited
    live_duplicate.withdraw(tournament.pk, carol)
    theirs = Seat.objects.get(match=game_of(tournament, carol))
    assert theirs.state == Seat.State.RESIGNED and theirs.match.is_finished
    assert Entry.objects.get(tournament=tournament, player=carol).withdrawn
    assert deal(tournament).dealt == 2  # the others go on at once, not waiting for carol
    while deal(tournament).dealt is not None:
        for player in (alice, bob):
            play(game_of(tournament, player), player)
    break_over(tournament)
    second = Match.objects.filter(puzzle=deal(tournament, 2))
    assert sorted(m.seats.get().player_id for m in second) == sorted([alice.pk, bob.pk])
    entry = Entry.objects.get(tournament=tournament, player=carol)
    assert entry.played == 1 and entry.rank is not None  # the game left counts


def test_leaving_is_refused_clearly_when_there_is_nothing_to_leave(alice, bob, carol):
    tournament = started(alice, bob)
    with pytest.raises(MoveRefused, match="You are not in this tournament"):
        live_duplicate.withdraw(tournament.pk, carol)
    live_duplicate.withdraw(tournament.pk, bob)
    with pytest.raises(MoveRefused, match="You have left this tournament already"):
        live_duplicate.withdraw(tournament.pk, bob)
    assert game_of(tournament, alice).status == Match.Status.ACTIVE  # nothing else changed
    upcoming = live_duplicate.create(
        alice, name="Later", game="nmbr9", games=1, speed="15s",
        starts=timezone.now() + timedelta(hours=1), open=True,
    )  # fmt: skip
    with pytest.raises(MoveRefused, match="not running"):
        live_duplicate.withdraw(upcoming.pk, alice)
    assert not Entry.objects.filter(tournament=upcoming, withdrawn=True).exists()


def test_a_player_whose_time_ran_out_is_told_one_more_miss_puts_them_out(client, alice, bob):
    tournament = started(alice, bob)
    play(game_of(tournament, alice), alice)
    Puzzle.objects.filter(pk=deal(tournament).pk).update(due=timezone.now())
    live_duplicate.run_due()  # bob's card placed for him: one strike
    client.force_login(bob)
    page = client.get(game_of(tournament, bob).get_absolute_url()).text
    assert "data-strike-warning" in page and "Miss the next one too" in page
    german = client.get(game_of(tournament, bob).get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de")
    assert "Verpasst du auch den nächsten" in german.text
    client.force_login(alice)  # not hers
    assert (
        "data-strike-warning" not in client.get(game_of(tournament, alice).get_absolute_url()).text
    )
    play(game_of(tournament, bob), bob)  # his own move: the warning goes
    client.force_login(bob)
    assert "data-strike-warning" not in client.get(game_of(tournament, bob).get_absolute_url()).text
