"""What a tournament tells its entrants: the start, a call-off and the results link to the
tournament's page, say its name in the reader's language, a shared place says it is shared,
and the results are pushed to the entrants' devices; an entrant who has not finished a game
of a duplicate is reminded once its window is 80% used (on the site, pushed, mailed), once;
each player of a swiss round is told once, with no push or e-mail at a real-time table."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.urls import reverse
from django.utils import timezone, translation

from games import notices, tasks
from games.infra import notifications, sweep
from games.models import Entry, Notification, Profile, PushMessage, Puzzle, Seat, Tournament
from games.services.features import push_devices, swiss_rounds, tournaments
from tests.factories import add_device, finish, live_started, pass_time, swiss_players
from tests.factories import new_duplicate as new
from tests.factories import started_duplicate as started
from tests.factories import started_swiss as swiss_started

pytestmark = pytest.mark.django_db


def said_to(user, message: str, language: str = "en") -> Notification:
    found = Notification.objects.filter(player=user, message=message)
    with translation.override(language):
        (notification,) = notices.say_all(found)
    return notification


def test_the_start_links_to_the_tournament_and_names_it_in_the_readers_language(alice, bob):
    tournament = started(alice, bob, name="Autumn cup")
    page = reverse("tournament", args=[tournament.pk])
    told = said_to(bob, tournaments.STARTED)
    assert told.said == "Autumn cup has started: your games are open."
    assert told.link == page and told.match is None
    german = said_to(bob, tournaments.STARTED, "de")
    assert german.said == "Autumn cup hat begonnen: Deine Spiele sind offen."


def test_the_start_of_a_live_duplicate_says_its_first_game_begins_now(alice, bob):
    tournament = live_started(alice, bob)
    assert not Notification.objects.filter(message=tournaments.STARTED).exists()
    told = said_to(bob, tournaments.LIVE_STARTED)
    assert told.said == "Friday live has started: its first game begins now."
    assert told.link == tournament.get_absolute_url() and told.match is None
    german = said_to(bob, tournaments.LIVE_STARTED, "de")
    assert german.said == "Friday live hat begonnen: Das erste Spiel beginnt jetzt."


def test_the_notifications_page_links_each_tournament_notification(client, alice, bob):
    tournament = started(alice, bob)
    client.force_login(bob)
    page = client.get(reverse("notifications")).content.decode()
    assert f'<a href="{tournament.get_absolute_url()}">Autumn cup has started' in page


def test_a_call_off_links_to_the_tournament(alice):
    tournament = new(alice)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    told = said_to(alice, tournaments.CALLED_OFF)
    assert told.said == "Autumn cup was called off: too few players joined."
    assert told.link == tournament.get_absolute_url()


def test_a_tournament_removed_since_is_named_as_it_was_and_links_nowhere(alice, bob):
    tournament = started(alice, bob)
    Tournament.objects.filter(pk=tournament.pk).delete()
    (told,) = notices.say_all(Notification.objects.filter(player=alice))
    assert told.said == "Autumn cup has started: your games are open." and told.link == ""


def test_a_notification_kept_with_the_name_alone_is_still_said(alice):
    Notification.objects.create(
        player=alice, message=tournaments.STARTED, params={"tournament": "Spring cup"}
    )
    (told,) = notices.say_all(Notification.objects.filter(player=alice))
    assert told.said == "Spring cup has started: your games are open." and told.link == ""


def test_the_results_say_a_shared_place_and_link_to_the_tournament(alice, bob, carol):
    tournament = started(alice, bob, carol, games=1)
    finish(tournaments.play(tournament.pk, alice, 1), alice)
    pass_time(tournament, 25)
    tournaments.run_due()
    # alice won; bob and carol never began the game: both 0, sharing the 2nd place
    assert Entry.objects.get(tournament=tournament, player=bob).rank == 2
    won = said_to(alice, tournaments.RESULTS)
    assert won.said == "Autumn cup is over: you finished #1 of 3."
    assert won.link == tournament.get_absolute_url()
    shared = said_to(bob, tournaments.SHARED)
    assert shared.said == "Autumn cup is over: you finished #2 of 3 (a shared place)."
    assert said_to(carol, tournaments.SHARED).link == tournament.get_absolute_url()
    german = said_to(bob, tournaments.SHARED, "de")
    assert german.said == "Autumn cup ist vorbei: Du bist Nr. 2 von 3 (geteilter Platz)."
    assert not Notification.objects.filter(player=bob, message=tournaments.RESULTS).exists()


def test_the_start_and_the_results_are_pushed_with_the_tournaments_address(
    push_service, alice, bob
):
    Profile.objects.update_or_create(player=bob, defaults={"language": "de"})
    for user in (alice, bob):
        add_device(push_service, user)
    tournament = started(alice, bob, games=1)
    url = settings.SITE_URL + tournament.get_absolute_url()
    start = PushMessage.objects.get(device__player=bob, kind=push_devices.MOVE)
    assert start.match is None
    assert start.payload == {
        "title": "Du bist am Zug",
        "body": "Autumn cup hat begonnen: Deine Spiele sind offen.",
        "url": url,
        "tag": f"move-t{tournament.pk}",
    }
    pass_time(tournament, 25)
    tournaments.run_due()
    result = PushMessage.objects.get(device__player=alice, kind=push_devices.RESULT)
    assert result.payload["url"] == url
    assert result.payload["body"] == "Autumn cup is over: you finished #1 of 2 (a shared place)."


def test_no_push_of_the_results_to_a_player_who_switched_results_off(push_service, alice, bob):
    Profile.objects.update_or_create(player=bob, defaults={"push_result": False})
    for user in (alice, bob):
        add_device(push_service, user)
    tournament = started(alice, bob, games=1)
    pass_time(tournament, 25)
    tournaments.run_due()
    assert PushMessage.objects.filter(kind=push_devices.RESULT, device__player=alice).exists()
    assert not PushMessage.objects.filter(kind=push_devices.RESULT, device__player=bob).exists()


# ------------------------------------------------------------------ a game closing soon


def late(tournament, number: int = 1, left: timedelta = timedelta(hours=4)) -> None:
    """Game ``number`` closes in ``left`` (its window of a day: 80% of it is used at 4.8 h)."""
    Puzzle.objects.filter(tournament=tournament, number=number).update(closes=timezone.now() + left)


def closing_time(client, tournament, language: str, number: int = 1) -> str:
    """When game ``number`` closes, as the tournament's page writes it in ``language``."""
    page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).text
    game = re.search(rf'data-game-number="{number}">.*?</li>', page, flags=re.S).group()
    return re.search(r"<time [^>]*>([^<]*)</time>", game).group(1)


def test_an_entrant_who_has_not_finished_a_game_is_reminded_once_at_80_percent(
    push_service, client, alice, bob, carol
):
    for user in (alice, bob, carol):
        add_device(push_service, user)
    tournament = started(alice, bob, carol, games=2)
    finish(tournaments.play(tournament.pk, alice, 1), alice)
    bobs = tournaments.play(tournament.pk, bob, 1)  # begun, not finished
    late(tournament, left=timedelta(hours=5))  # 79% used: not yet
    assert sweep.tournament_work()["remind"] == []
    late(tournament)
    deal = tournament.deals.get(number=1)
    assert sweep.tournament_work()["remind"] == [deal.pk]
    assert tournaments.run_due()["remind"] == 2  # bob and carol; alice has finished it
    assert tournaments.run_due()["remind"] == 0  # once
    assert tournaments.remind(deal.pk) == 0
    assert sweep.tournament_work()["remind"] == []
    reminded = Notification.objects.filter(message=tournaments.CLOSES_SOON)
    assert sorted(reminded.values_list("player__username", flat=True)) == ["bob", "carol"]
    assert reminded.get(player=bob).match == bobs  # links to the game begun
    told = said_to(carol, tournaments.CLOSES_SOON)
    assert told.link == tournament.get_absolute_url()
    closes = {language: closing_time(client, tournament, language) for language in ("en", "de")}
    assert closes["en"].endswith(" UTC") and closes["de"].endswith(" UTC")
    assert told.said == f"Game 1 of Autumn cup closes at {closes['en']}: finish it before then."
    assert said_to(carol, tournaments.CLOSES_SOON, "de").said == (
        f"Spiel 1 von Autumn cup schließt am {closes['de']}: Spiele es bis dahin zu Ende."
    )
    alarms = PushMessage.objects.filter(kind=push_devices.ALARM)
    assert sorted(alarms.values_list("device__player__username", flat=True)) == ["bob", "carol"]
    assert alarms.first().payload["url"] == settings.SITE_URL + tournament.get_absolute_url()
    assert closes["en"] in alarms.first().payload["body"]
    assert Entry.objects.get(tournament=tournament, player=alice).mail_at is None
    # game 2's own reminder comes when its window is 80% used
    late(tournament, number=2)
    assert tournaments.run_due()["remind"] == 3


def test_the_reminder_is_mailed_once_and_only_while_the_game_is_still_to_finish(
    client, alice, bob, carol
):
    Profile.objects.update_or_create(player=carol, defaults={"email_on_move": False})
    Profile.objects.update_or_create(player=bob, defaults={"language": "de"})
    tournament = started(alice, bob, carol, games=1)
    late(tournament)
    tournaments.run_due()
    entries = notifications.due_entries()
    assert len(entries) == 3
    finish(tournaments.play(tournament.pk, alice, 1), alice)  # done since the reminder
    assert notifications.send_reminders(entries) == 1
    assert notifications.send_reminders(entries) == 0  # once
    assert notifications.due_entries() == []
    (sent,) = mail.outbox
    assert sent.to == ["bob@example.com"]
    assert sent.subject == "Spiel 1 von Autumn cup schließt bald"
    closes = closing_time(client, tournament, "de")
    assert f"Spiel 1 von Autumn cup schließt am {closes}, und du hast" in sent.body
    assert settings.SITE_URL + tournament.get_absolute_url() in sent.body


def test_the_notifications_page_writes_the_reminders_time_as_pages_do_names_escaped(
    client, alice, bob
):
    tournament = started(alice, bob, name="<b>Tom & Jerry</b>", games=1)
    late(tournament)
    tournaments.run_due()
    deal = tournament.deals.get()
    client.force_login(bob)
    page = client.get(reverse("notifications")).text
    time = re.search(r"<time [^>]*>[^<]*</time>", page[page.index("closes at") :]).group()
    assert f'datetime="{deal.closes.isoformat()}" data-local="zoned"' in time
    assert time.endswith(f">{closing_time(client, tournament, 'en')}</time>")
    assert "Game 1 of &lt;b&gt;Tom &amp; Jerry&lt;/b&gt; closes at <time " in page
    assert "<b>Tom" not in page


def test_a_round_started_kept_naming_its_table_is_still_said_in_german(alice):
    said = {"round": 2, "tournament": "Swiss cup", "match": "Match #7"}
    Notification.objects.create(player=alice, message=swiss_rounds.ROUND_STARTED_NAMED, params=said)
    with translation.override("de"):
        (told,) = notices.say_all(Notification.objects.filter(player=alice))
    assert told.said.startswith("Runde 2 von Swiss cup hat begonnen") and "Match #7" in told.said


def test_a_reminder_kept_with_its_time_written_in_utc_is_still_said_in_german(alice):
    said = {"number": 1, "tournament": "Spring cup", "closes": "2026-03-01 12:00"}
    Notification.objects.create(player=alice, message=tournaments.CLOSES_SOON_UTC, params=said)
    with translation.override("de"):
        (told,) = notices.say_all(Notification.objects.filter(player=alice))
    assert told.said == (
        "Spiel 1 von Spring cup schließt um 2026-03-01 12:00 UTC: Spiele es bis dahin zu Ende."
    )


def test_the_sweep_sends_the_reminders_e_mails(alice, bob, monkeypatch):
    sent = []
    monkeypatch.setattr(tasks.queue, "send_now", lambda name, *args: sent.append(name) or True)
    tournament = started(alice, bob, games=1)
    late(tournament)
    tournaments.run_due()
    tasks.sweep()
    assert tasks.send_tournament_mails.name in sent


# ------------------------------------------------------------------ a swiss round paired


@pytest.mark.parametrize("pace", ["1d", "30s"])
def test_each_player_of_a_new_round_is_told_once_and_real_time_tables_get_no_mail_or_push(
    push_service, pace
):
    four = swiss_players(4)
    for user in four:
        add_device(push_service, user)
    tournament = swiss_started(four, pace=pace)
    tables = list(tournament.tables.all())
    assert len(tables) == 2
    for user in four:
        mine = Notification.objects.filter(player=user)
        news = mine.get(message=swiss_rounds.ROUND_STARTED)
        seat = Seat.objects.get(player=user, match__tournament=tournament)
        assert news.match_id == seat.match_id  # linked to the table
        assert said_to(user, swiss_rounds.ROUND_STARTED).said == (
            "Round 1 of Swiss cup has started: your table is ready."
        )
        assert mine.filter(read=False).count() == 1  # one unread notice, never two
        pushes = PushMessage.objects.filter(device__player=user)
        if pace == "30s":
            assert not pushes.exists() and seat.mail_at is None
            assert not news.read
        elif seat.deadline is not None:  # owes the first move: "your move", as in any match
            assert mine.get(read=False).kind == Notification.Kind.MOVE and news.read
            (push,) = pushes
            assert push.kind == push_devices.MOVE and push.match_id == seat.match_id
            assert seat.mail_at is not None
        else:
            assert not news.read and not pushes.exists() and seat.mail_at is None
