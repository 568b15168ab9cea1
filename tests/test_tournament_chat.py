"""A tournament's chat: whoever may see the tournament reads it, its entrants write in it
(the match chat's rules of writing: accounts, bans, the rate limit, blocks, mutes, reports),
closed while a duplicate's games are open and once it is over, and nothing is ever posted
in it by the site."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from games.models import ChatBan, ChatMessage, Tournament
from games.services.features import blocks, reports, swiss_rounds, tournament_chat, tournaments
from games.services.features.chat_rooms import ChatRefused, TooFast
from tests.factories import new_duplicate as new
from tests.factories import new_swiss, pass_time
from tests.factories import started_duplicate as started
from tests.factories import started_swiss as swiss_started
from tests.factories import swiss_players as players
from tests.factories import win_table as win

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def texts(chat) -> list[str]:
    return [said.text for room in chat.rooms for said in room.said]


def test_entrants_write_and_everybody_who_sees_the_tournament_reads(alice, bob, carol, client):
    tournament = new_swiss(alice)
    tournaments.join(tournament.pk, bob)
    tournament_chat.post(tournament.pk, bob, "hello all")
    with pytest.raises(ChatRefused, match="Only the entrants"):
        tournament_chat.post(tournament.pk, carol, "may I?")
    chat = tournament_chat.read(tournament.pk, carol)
    assert texts(chat) == ["hello all"] and chat.room == "" and chat.live
    # a visitor reads it on the page too, and is asked to log in to write
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert "hello all" in page and "Log in to write in the chat." in page
    assert ChatMessage.objects.get().tournament == tournament


def test_a_blocked_author_is_hidden_and_a_muted_chat_shows_nothing(alice, bob):
    tournament = new_swiss(alice)
    tournaments.join(tournament.pk, bob)
    tournament_chat.post(tournament.pk, bob, "from bob")
    tournament_chat.post(tournament.pk, alice, "from alice")
    blocks.block(alice, bob)
    assert texts(tournament_chat.read(tournament.pk, alice)) == ["from alice"]
    tournament_chat.mute(tournament.pk, bob, True)
    tournament_chat.mute(tournament.pk, bob, True)
    muted = tournament_chat.read(tournament.pk, bob)
    assert muted.muted and texts(muted) == []
    tournament_chat.mute(tournament.pk, bob, False)
    assert texts(tournament_chat.read(tournament.pk, bob)) == ["from bob", "from alice"]


def test_a_ban_and_the_rate_limit_hold_here_as_in_matches(alice, bob):
    tournament = new_swiss(alice)
    ChatBan.objects.create(player=alice, until=timezone.now() + timedelta(days=1))
    assert tournament_chat.read(tournament.pk, alice).banned_until is not None
    with pytest.raises(ChatRefused, match="cannot write in chats until"):
        tournament_chat.post(tournament.pk, alice, "hi")
    mine = new_swiss(bob, name="Bob's cup")
    with pytest.raises(ChatRefused, match="Your message"):
        tournament_chat.post(mine.pk, bob, "  ")
    for n in range(10):
        tournament_chat.post(mine.pk, bob, f"message {n}")
    with pytest.raises(TooFast):
        tournament_chat.post(mine.pk, bob, "one more")


def test_a_running_duplicate_is_closed_for_writing_and_its_messages_before_stay(alice, bob):
    tournament = new(alice)
    tournaments.join(tournament.pk, bob)
    tournament_chat.post(tournament.pk, bob, "good luck")
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    tournaments.start(tournament.pk)
    with pytest.raises(ChatRefused, match="a player ahead could tell"):
        tournament_chat.post(tournament.pk, alice, "the first tile is")
    assert texts(tournament_chat.read(tournament.pk, alice)) == ["good luck"]
    tournament.refresh_from_db()
    pass_time(tournament, 50)
    tournaments.run_due()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    chat = tournament_chat.read(tournament.pk, bob)
    assert not chat.live and chat.closed == "The tournament is over: its chat is closed."


def test_a_running_swiss_chat_is_open_and_nothing_is_ever_posted_by_the_site():
    four = players(4)
    tournament = swiss_started(four)
    tournament_chat.post(tournament.pk, four[1], "round one!")
    for number in (1, 2):
        for match in tournament.tables.filter(round=number):
            win(match)
        swiss_rounds.run_due()  # as after the last table's commit
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert list(ChatMessage.objects.values_list("author", "text")) == [(four[1].pk, "round one!")]


def test_an_unlisted_tournaments_chat_is_read_with_its_link_only(alice, bob, carol, client):
    tournament = new_swiss(alice, open=False)
    tournament_chat.post(tournament.pk, alice, "secret plans")
    url = reverse("tournament_chat", args=[tournament.pk])
    client.force_login(carol)
    assert client.get(url, **HTMX).status_code == 404
    assert client.post(url, {"text": "hi"}, **HTMX).status_code == 404
    with_key = client.get(f"{url}?key={tournament.token}", **HTMX)
    assert with_key.status_code == 200 and "secret plans" in with_key.content.decode()


def test_posting_from_the_page_answers_with_the_chat(alice, bob, client):
    tournament = new_swiss(alice)
    client.force_login(alice)
    url = reverse("tournament_chat", args=[tournament.pk])
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert f'hx-post="{url}"' in page and "Message to the tournament" in page
    answer = client.post(url, {"text": "welcome <b>all</b>"}, **HTMX)
    assert answer.status_code == 200
    assert "welcome &lt;b&gt;all&lt;/b&gt;" in answer.content.decode()
    refused = client.post(url, {"text": ""}, **HTMX)
    assert refused.status_code == 400 and "data-chat-error" in refused.content.decode()
    plain = client.post(url, {"text": "again"})
    assert plain.status_code == 302 and plain.url == f"{tournament.get_absolute_url()}#chat"
    muted = client.post(reverse("tournament_chat_mute", args=[tournament.pk]), {"muted": "on"})
    assert muted.status_code == 302 and tournament_chat.read(tournament.pk, alice).muted


def test_a_message_is_reported_and_removed_as_in_a_match(alice, bob, client):
    tournament = new_swiss(alice)
    tournaments.join(tournament.pk, bob)
    message = tournament_chat.post(tournament.pk, bob, "rude words")
    assert reports.reportable(message.pk, alice) == message
    client.force_login(alice)
    form = client.get(reverse("report") + f"?message={message.pk}")
    assert form.status_code == 200
    sent = client.post(reverse("report"), {"message": message.pk, "reason": "insults"})
    assert sent.status_code == 302 and sent.url == f"{tournament.get_absolute_url()}#chat"
    assert [m.pk for m in reports.context(message)] == [message.pk]
    staff = User.objects.create_user("mod", "mod@example.com", "a-Long-pa55word")
    reports.remove(message, staff)
    (said,) = tournament_chat.read(tournament.pk, alice).rooms[0].said
    assert said.removed and said.text == ""
    assert message.reports.get().outcome == "removed"


def test_a_chat_of_a_tournament_removed_goes_with_it(alice, bob):
    tournament = started(alice, bob)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.UPCOMING)
    tournament_chat.post(tournament.pk, alice, "bye")
    Tournament.objects.filter(pk=tournament.pk).delete()
    assert not ChatMessage.objects.exists()
