"""The chat of a match: who writes and reads which room, the strict reading of a message, the
rate limit, muting, chats off, bans, blocked authors, and the pages that show it."""

import doctest
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone, translation

from games import inputs, services
from games.infra import limits
from games.models import Block, ChatBan, ChatMessage, ChatMute, Match, Profile
from games.nmbr9 import rules as nmbr9_rules
from games.services.features import chat_rooms, closing
from games.services.match import bot_seats
from tests.factories import HTMX, make_match, open_match, play_to_end, say, section

pytestmark = pytest.mark.django_db


def chat_of(client, match) -> str:
    return section(client.get(match.get_absolute_url()).text)


def texts(match, room=None) -> list[str]:
    stored = ChatMessage.objects.filter(match=match)
    if room:
        stored = stored.filter(room=room)
    return list(stored.values_list("text", flat=True))


@pytest.fixture
def finished(alice, bob) -> Match:
    match = make_match(alice, bob, time_control="1d")
    play_to_end(match, [alice, bob])
    match.refresh_from_db()
    assert match.is_finished
    return match


# ------------------------------------------------------------------ writing and reading


def test_players_write_in_their_room_and_read_each_other(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    response = say(client, match, "  good luck, bob!  ")
    assert response.status_code == 302 and response.url.endswith("#chat")
    assert texts(match, "players") == ["good luck, bob!"]
    client.force_login(bob)
    shown = chat_of(client, match)
    assert "good luck, bob!" in shown and ">alice<" in shown
    assert 'data-room="players"' in shown and 'data-room="spectators"' not in shown
    assert "data-chat-form" in shown and "Message to the players" in shown
    assert 'data-local="time"' in shown  # the browser shows the local time


def test_a_posted_message_answers_htmx_with_the_whole_chat_and_an_empty_form(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    response = say(client, match, "hello", **HTMX)
    assert response.status_code == 200
    assert response.text.startswith('<section id="chat"')
    assert "hello" in response.text and "></textarea>" in response.text
    assert "autofocus" in response.text  # typing on is one keystroke away
    part = client.get(reverse("chat", args=[match.pk]), **HTMX)
    assert part.text.startswith('<div id="chat-log"') and "hello" in part.text
    assert "data-chat-form" not in part.text  # a refresh never touches what is being typed
    assert client.get(reverse("chat", args=[match.pk])).url.endswith("#chat")


def test_the_chat_is_outside_the_play_area_and_its_partials(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    say(client, match, "a word")
    html = client.get(match.get_absolute_url()).text
    play_area = re.search(r'<section id="play".*?</section>\n', html, re.S).group(0)
    assert "a word" not in play_area and "a word" in section(html)
    polled = client.get(match.get_absolute_url(), {"poll": "x"}, **HTMX).text
    assert "a word" not in polled and 'id="chat"' not in polled


def test_spectators_have_a_room_the_players_read_only_once_the_match_is_over(
    client, alice, bob, carol
):
    match = open_match(alice)
    client.force_login(carol)  # anybody may look at an open match waiting for players
    assert "Message to the spectators" in chat_of(client, match)
    assert say(client, match, "go alice").status_code == 302
    client.force_login(alice)
    assert say(client, match, "welcome").status_code == 302
    assert texts(match, "spectators") == ["go alice"] and texts(match, "players") == ["welcome"]
    shown = chat_of(client, match)
    assert "welcome" in shown and "go alice" not in shown
    client.force_login(carol)
    shown = chat_of(client, match)
    assert "go alice" in shown and "welcome" not in shown
    services.join(match.pk, bob)
    client.force_login(bob)
    assert "go alice" not in chat_of(client, match)
    play_to_end(match, [alice, bob])
    for player in (alice, bob):
        client.force_login(player)
        for url in (match.get_absolute_url(), reverse("replay", args=[match.pk])):
            shown = section(client.get(url).text)
            assert "go alice" in shown and "welcome" in shown, url
            assert "The match is over: its chat is closed." in shown
            assert "data-chat-form" not in shown
    for visitor in (carol, None):
        client.logout()
        if visitor:
            client.force_login(visitor)
        for url in (match.get_absolute_url(), reverse("replay", args=[match.pk])):
            shown = section(client.get(url).text)
            assert "go alice" in shown and "welcome" not in shown, (visitor, url)


def test_a_finished_match_is_closed_for_writing(client, alice, carol, finished):
    for user in (alice, carol):
        client.force_login(user)
        response = say(client, finished, "too late")
        assert response.status_code == 400
        assert "The match is over: its chat is closed." in response.text
    assert texts(finished) == []


def test_in_free_pace_the_players_room_is_closed_while_the_match_runs(client, alice, bob):
    match = make_match(alice, bob, pace="free")
    client.force_login(alice)
    response = say(client, match, "my next tile is a 9")
    assert response.status_code == 400 and "free pace" in response.text
    assert texts(match) == []
    shown = chat_of(client, match)
    assert "data-chat-form" not in shown and "data-chat-closed" in shown
    with pytest.raises(chat_rooms.ChatRefused):
        chat_rooms.post(match.pk, bob, "hi")


def test_free_pace_is_the_games_own_word_and_the_waiting_room_may_chat(client, alice):
    assert doctest.testmod(nmbr9_rules, optionflags=doctest.ELLIPSIS).failed == 0
    match = services.create_match(
        alice, players=2, time_control="1d", rated=False, open=True, options={"pace": "free"}
    )
    assert chat_rooms.own_pace(match)
    client.force_login(alice)
    assert say(client, match, "who joins?").status_code == 302  # no card seen yet


def test_solo_games_and_puzzle_challenges_have_no_chat(client, alice, bob):
    from tests.factories import challenge

    solo = services.start_solo(alice, seed=3)
    duel = challenge(alice, bob)
    client.force_login(alice)
    for match in (solo, duel):
        assert 'id="chat"' not in client.get(match.get_absolute_url()).text
        assert say(client, match, "psst").status_code == 400
        assert (
            client.post(reverse("chat_mute", args=[match.pk]), {"muted": "on"}).status_code == 404
        )
    assert ChatMessage.objects.count() == 0


def test_strangers_cannot_read_or_write_a_private_running_match_s_chat(client, alice, bob, carol):
    match = make_match(alice, bob)
    Match.objects.filter(pk=match.pk).update(private=True)
    ChatMessage.objects.create(match=match, author=alice, room="players", text="secret plan")
    client.force_login(carol)
    assert client.get(reverse("chat", args=[match.pk]), **HTMX).status_code == 404
    assert say(client, match, "let me in").status_code == 404
    assert texts(match) == ["secret plan"]


def test_a_spectator_of_a_public_match_talks_in_the_spectators_room_only(client, alice, bob, carol):
    match = make_match(alice, bob)
    ChatMessage.objects.create(match=match, author=alice, room="players", text="secret plan")
    client.force_login(carol)
    assert say(client, match, "nice move").status_code in (200, 302)
    shown = client.get(reverse("chat", args=[match.pk]), **HTMX).text
    assert "nice move" in shown and "secret plan" not in shown
    assert texts(match, "spectators") == ["nice move"]
    client.force_login(alice)
    assert "nice move" not in client.get(reverse("chat", args=[match.pk]), **HTMX).text


# ------------------------------------------------------------------ what a message may be


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "write something first"),
        ("   \n ", "write something first"),
        ("x" * 301, "at most 300 characters"),
        ("bell\x07", "no control characters"),
        ("tab\there", "no control characters"),
        ("turned \u202eround", "no control characters"),
        ("1\n2\n3\n4\n5\n6", "at most 5 lines"),
    ],
)
def test_a_message_is_read_strictly_and_a_refused_one_comes_back(client, alice, bob, text, reason):
    match = make_match(alice, bob)
    client.force_login(alice)
    response = say(client, match, text)
    assert response.status_code == 400 and reason in response.text
    assert "data-chat-error" in response.text
    assert texts(match) == []
    response = say(client, match, text, **HTMX)
    assert response.status_code == 400 and reason in response.text


def test_the_longest_message_and_a_few_lines_are_kept_as_written(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    assert say(client, match, "é" * 300).status_code == 302
    assert say(client, match, "one\r\ntwo\rthree").status_code == 302
    assert texts(match) == ["é" * 300, "one\ntwo\nthree"]
    with translation.override("en"):
        assert doctest.testmod(inputs).failed == 0


def test_markup_and_links_are_shown_as_text_everywhere(client, alice, bob, carol):
    match = open_match(alice)
    said = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(2)>",
        "see https://evil.example/win?a=1&b=2",
    ]
    client.force_login(alice)
    for text in said:
        assert say(client, match, text).status_code == 302
    client.force_login(carol)
    say(client, match, '<a href="https://evil.example">x</a>')
    services.join(match.pk, bob)
    play_to_end(match, [alice, bob])
    client.force_login(bob)
    pages = [
        client.get(match.get_absolute_url()).text,
        client.get(reverse("replay", args=[match.pk])).text,
        client.get(reverse("chat", args=[match.pk]), **HTMX).text,
    ]
    for html in pages:
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "&lt;img src=x onerror=alert(2)&gt;" in html
        assert "https://evil.example/win?a=1&amp;b=2" in html
        assert "&lt;a href=&quot;https://evil.example&quot;&gt;x&lt;/a&gt;" in html
        assert "<script>alert" not in html and "<img src=x" not in html
        assert 'href="https://evil.example' not in html  # links are not made clickable
    message = ChatMessage.objects.get(text=said[0])
    report = client.get(reverse("report"), {"message": message.pk}).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report and "<script>alert" not in report


# ------------------------------------------------------------------ limits


def test_ten_messages_a_minute_then_a_wait(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    for number in range(10):
        assert say(client, match, f"message {number}").status_code == 302
    response = say(client, match, "one more")
    assert response.status_code == 429 and "writing too fast" in response.text
    assert "one more" in response.text  # the text comes back to be sent later
    response = say(client, match, "one more", **HTMX)
    assert response.status_code == 400 and "writing too fast" in response.text  # shown in place
    assert len(texts(match)) == 10
    client.force_login(bob)  # a limit of one's own
    assert say(client, match, "my turn").status_code == 302


def test_refused_messages_do_not_count_against_the_limit(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    for _ in range(12):
        assert say(client, match, "").status_code == 400
    assert say(client, match, "fine").status_code == 302


def test_without_redis_the_chat_has_no_limit_and_no_error(client, alice, bob, settings):
    from nmbr9site.processes import free_port

    away = settings.CACHES["default"] | {"LOCATION": f"redis://127.0.0.1:{free_port()}/0"}
    settings.CACHES = {"default": away}
    match = make_match(alice, bob)
    client.force_login(alice)
    for number in range(limits.parsed(limits.CHAT_MESSAGES).amount + 2):
        assert say(client, match, f"n{number}").status_code == 302


# ------------------------------------------------------------------ who may write


def test_bots_and_guests_never_write(client, alice):
    match = services.start_against_bot(alice, "easy")
    bot = User.objects.get(seats__match=match, profile__bot="easy")
    with pytest.raises(chat_rooms.ChatRefused):
        chat_rooms.post(match.pk, bot, "beep")
    assert bot_seats.strength_of(bot) == "easy"
    guest = User.objects.create_user("guest-1")
    Profile.objects.create(player=guest, guest=True)
    waiting = open_match(alice)
    with pytest.raises(chat_rooms.ChatRefused, match="Create an account"):
        chat_rooms.post(waiting.pk, guest, "hi")
    assert ChatMessage.objects.count() == 0


def test_a_player_the_staff_muted_cannot_write_until_then(client, alice, bob):
    match = make_match(alice, bob)
    ChatBan.objects.create(player=alice, until=timezone.now() + timedelta(days=1))
    client.force_login(alice)
    shown = chat_of(client, match)
    assert "You cannot write in chats until" in shown and "data-chat-form" not in shown
    response = say(client, match, "let me talk")
    assert response.status_code == 400 and "You cannot write in chats until" in response.text
    assert texts(match) == []
    ChatBan.objects.update(until=timezone.now() - timedelta(seconds=1))
    assert say(client, match, "back again").status_code == 302


# ------------------------------------------------------------------ what each reader reads


def test_a_blocked_players_messages_are_hidden_from_the_blocker_only(client, alice, bob, carol):
    match = make_match(alice, bob, carol)
    client.force_login(bob)
    say(client, match, "from bob")
    Block.objects.create(blocker=alice, blocked=bob)
    client.force_login(alice)
    assert "from bob" not in chat_of(client, match)
    assert "from bob" not in client.get(reverse("chat", args=[match.pk]), **HTMX).text
    client.force_login(carol)
    assert "from bob" in chat_of(client, match)


def test_a_muted_chat_is_not_shown_until_unmuted(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(bob)
    say(client, match, "are you there?")
    client.force_login(alice)
    mute = reverse("chat_mute", args=[match.pk])
    response = client.post(mute, {"muted": "on"})
    assert response.status_code == 302 and ChatMute.objects.filter(player=alice).exists()
    shown = chat_of(client, match)
    assert "are you there?" not in shown and "You muted this chat." in shown
    assert "data-chat-unmute" in shown and "data-chat-poll" not in shown
    assert "are you there?" not in client.get(reverse("chat", args=[match.pk]), **HTMX).text
    client.force_login(bob)
    assert "are you there?" in chat_of(client, match)  # muted for alice only
    client.force_login(alice)
    response = client.post(mute, {"muted": "off"}, **HTMX)
    assert response.status_code == 200 and "are you there?" in response.text
    assert not ChatMute.objects.exists()


def test_chats_off_in_the_settings_hides_every_chat(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(bob)
    say(client, match, "hello alice")
    client.force_login(alice)
    assert "Show chats" in client.get(reverse("settings")).text
    response = client.post(reverse("settings"), {"email_on_move": "on", "language": ""})
    assert response.status_code == 302
    assert not Profile.objects.get(player=alice).show_chats
    shown = chat_of(client, match)
    assert "hello alice" not in shown and "data-chats-off" in shown
    client.post(reverse("settings"), {"show_chats": "on", "language": ""})
    assert "hello alice" in chat_of(client, match)


def test_a_removed_message_and_a_closed_account_are_shown_as_such(client, alice, bob):
    match = make_match(alice, bob)
    rude = ChatMessage.objects.create(match=match, author=bob, room="players", text="rude")
    ChatMessage.objects.create(match=match, author=bob, room="players", text="sorry")
    ChatMessage.objects.filter(pk=rude.pk).update(removed=timezone.now())
    closing.close(bob)
    client.force_login(alice)
    shown = chat_of(client, match)
    assert "rude" not in shown and "message removed" in shown
    assert "sorry" in shown and f"closed account {bob.pk}" in shown


def test_the_page_in_german(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    say(client, match, "Viel Glück")
    shown = section(client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text)
    assert "Viel Glück" in shown
    assert "Nachricht an die Mitspieler" in shown and "Senden" in shown
    assert "Diesen Chat stummschalten" in shown
    response = say(client, match, "", HTTP_ACCEPT_LANGUAGE="de")
    assert "Deine Nachricht: schreib erst etwas." in response.text


def test_visitors_read_a_chat_only_where_they_may_see_the_match_page(client, alice, carol):
    match = open_match(alice)
    chat_rooms.post(match.pk, carol, "anyone joining?")
    response = client.get(reverse("chat", args=[match.pk]), **HTMX)
    assert response.status_code == 302 and "anyone joining?" not in response.text
    response = say(client, match, "me!")
    assert response.status_code == 302 and reverse("login") in response.url
    assert texts(match) == ["anyone joining?"]
