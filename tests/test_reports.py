"""Reports to the staff, and the staff's queue in the admin: who may report what, the limit,
what the queue shows, and what only staff with the right permissions may do there."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from games.models import ChatBan, ChatMessage, Report
from games.services.features import chat_rooms, reports
from tests.factories import HTMX, make_match, open_match, say

pytestmark = pytest.mark.django_db
QUEUE = "admin:games_report_changelist"


def report_page(client, **asked):
    return client.get(reverse("report"), asked)


def send(client, reason="insults", text="", **asked):
    return client.post(reverse("report"), {"reason": reason, "text": text, **asked})


@pytest.fixture
def said(alice, bob) -> ChatMessage:
    """A message of bob's to alice in their match."""
    match = make_match(alice, bob)
    return chat_rooms.post(match.pk, bob, "you play like a bot")


# ------------------------------------------------------------------ reporting


def test_a_player_reports_a_message_they_read(client, alice, bob, said):
    client.force_login(alice)
    shown = client.get(said.match.get_absolute_url()).text
    assert f'href="/report/?message={said.pk}"' in shown
    page = report_page(client, message=said.pk)
    assert page.status_code == 200 and "you play like a bot" in page.text
    for reason in ("Insults or harassment", "Spam", "Cheating", "Something else"):
        assert reason in page.text
    response = send(client, "insults", "  every game  ", message=said.pk)
    assert response.status_code == 302 and response.url == said.match.get_absolute_url() + "#chat"
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.message) == (alice, bob, said)
    assert (report.reason, report.text, report.handled_at) == ("insults", "every game", None)
    assert "Thank you" in client.get(response.url).text


def test_nobody_reports_their_own_message_or_one_they_cannot_read(client, alice, bob, carol, said):
    client.force_login(bob)
    assert (
        f'href="/report/?message={said.pk}"' not in client.get(said.match.get_absolute_url()).text
    )
    assert report_page(client, message=said.pk).status_code == 404
    client.force_login(carol)  # not in the match: the players' room is not hers to read
    assert report_page(client, message=said.pk).status_code == 404
    assert send(client, message=said.pk).status_code == 404
    ChatMessage.objects.filter(pk=said.pk).update(removed=timezone.now())
    client.force_login(alice)
    assert report_page(client, message=said.pk).status_code == 404  # removed: nothing to read
    for number in ("x", "0", "99999999", "١"):
        assert report_page(client, message=number).status_code == 404
    assert Report.objects.count() == 0


def test_a_report_needs_a_reason_and_a_short_plain_note(client, alice, bob, said):
    client.force_login(alice)
    for reason, text, words in (
        ("", "", "This field is required."),
        ("rude", "", "Select a valid choice."),
        ("spam", "x" * 501, "at most 500 characters"),
        ("spam", "a\x00b", "NUL character"),
        ("spam", "a\x1bb", "no control characters"),
    ):
        response = send(client, reason, text, message=said.pk)
        assert response.status_code == 400 and words in response.text, (reason, text)
    assert Report.objects.count() == 0


def test_a_player_is_reported_from_their_profile(client, alice, bob):
    client.force_login(alice)
    profile = client.get(reverse("profile", args=["bob"])).text
    assert 'href="/report/?player=bob"' in profile
    assert "data-report-player" not in client.get(reverse("profile", args=["alice"])).text
    assert report_page(client, player="alice").status_code == 404  # not oneself
    assert report_page(client, player="nobody").status_code == 404
    response = send(client, "cheating", "plays with a program", player="bob")
    assert response.status_code == 302 and response.url == reverse("profile", args=["bob"])
    report = Report.objects.get()
    assert (report.reported, report.message, report.reason) == (bob, None, "cheating")


def test_visitors_are_sent_to_log_in_and_guests_to_sign_up(client, bob):
    response = report_page(client, player="bob")
    assert response.status_code == 302 and reverse("login") in response.url
    client.post(reverse("new_solo"))  # a guest now
    response = report_page(client, player="bob")
    assert response.status_code == 302 and reverse("signup") in response.url


def test_ten_reports_a_day(client, alice, bob):
    client.force_login(alice)
    for _ in range(10):
        assert send(client, "spam", player="bob").status_code == 302
    response = send(client, "spam", player="bob")
    assert response.status_code == 429 and "too many reports" in response.text
    assert Report.objects.count() == 10


def test_the_report_page_in_german(client, alice, said):
    client.force_login(alice)
    page = client.get(reverse("report"), {"message": said.pk}, HTTP_ACCEPT_LANGUAGE="de")
    assert "Eine Nachricht melden" in page.text and "Beleidigung oder Belästigung" in page.text
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    response = client.post(reverse("report"), {"message": said.pk, "reason": "spam"}, **german)
    assert "Danke: Das Team sieht es sich an." in client.get(response.url, **german).text
    for _ in range(9):
        send(client, "spam", message=said.pk)
    response = client.post(reverse("report"), {"message": said.pk, "reason": "spam"}, **german)
    assert response.status_code == 429 and "Du hast zu viele Meldungen geschickt" in response.text


# ------------------------------------------------------------------ the staff's queue


def staff_member(username="mod", *, close=False) -> User:
    """A member of the staff who may handle reports (and close accounts, with ``close``)."""
    user = User.objects.create_user(username, f"{username}@example.com", "a-Long-pa55word")
    user.is_staff = True
    user.save()
    names = ["view_report", "change_report", "view_chatmessage", "change_chatmessage"]
    names += ["view_chatban", "add_chatban", "change_chatban"]
    user.user_permissions.add(*Permission.objects.filter(codename__in=names))
    if close:
        user.user_permissions.add(Permission.objects.get(codename="change_user"))
    return user


def act(client, action: str, *reports_: Report, **extra):
    return client.post(
        reverse(QUEUE),
        {"action": action, "_selected_action": [r.pk for r in reports_], **extra},
    )


def test_only_staff_reach_the_queue_and_act_there(client, alice, bob, said):
    report = reports.report(alice, bob, "insults", "", said)
    for url in (reverse(QUEUE), reverse("admin:games_report_change", args=[report.pk])):
        client.logout()
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response.url
        client.force_login(alice)  # a player, not staff
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response.url
    response = act(client, "remove_messages", report)
    assert response.status_code == 302 and "/admin/login/" in response.url
    said.refresh_from_db()
    assert said.removed is None
    report.refresh_from_db()
    assert report.handled_at is None
    idle = User.objects.create_user("idle", "idle@example.com", "a-Long-pa55word", is_staff=True)
    client.force_login(idle)  # staff without the permissions
    assert client.get(reverse(QUEUE)).status_code == 403
    assert act(client, "remove_messages", report).status_code == 403
    said.refresh_from_db()
    assert said.removed is None


def test_the_queue_lists_reports_to_handle_first_with_the_message_in_its_context(
    client, alice, bob, said
):
    match = said.match
    before = [chat_rooms.post(match.pk, alice, f"before {n}") for n in range(6)]
    ChatMessage.objects.filter(pk=said.pk).update(created=timezone.now() + timedelta(seconds=1))
    for n in range(6):
        ChatMessage.objects.create(
            match=match,
            author=alice,
            room="players",
            text=f"after {n} <b>",
            created=timezone.now() + timedelta(seconds=2 + n),
        )
    assert before
    old = reports.report(alice, bob, "spam", "old one", None)
    reports.handle(old, alice, Report.Outcome.NOTHING)
    report = reports.report(alice, bob, "insults", "look", said)
    client.force_login(staff_member())
    listed = client.get(reverse(QUEUE)).text
    assert listed.index(f"/admin/games/report/{report.pk}/") < listed.index(
        f"/admin/games/report/{old.pk}/"
    )
    page = client.get(reverse("admin:games_report_change", args=[report.pk])).text
    shown = re.search(r'<ol class="chat-context">.*?</ol>', page, re.S).group(0)
    assert "before 0" not in shown and all(f"before {n}" in shown for n in range(1, 6))
    assert all(f"after {n} &lt;b&gt;" in shown for n in range(5)) and "after 5" not in shown
    assert "<mark data-reported>" in shown and "you play like a bot" in shown
    assert "<b>" not in shown


def test_staff_remove_a_message_and_mute_its_author_who_then_cannot_write(
    client, alice, bob, said, django_capture_on_commit_callbacks
):
    report = reports.report(alice, bob, "insults", "", said)
    staff = staff_member()
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        assert act(client, "remove_messages", report).status_code == 302
    said.refresh_from_db()
    report.refresh_from_db()
    assert said.removed is not None and said.removed_by == staff
    assert (report.handled_by, report.outcome) == (staff, "removed")
    client.force_login(alice)
    shown = client.get(said.match.get_absolute_url()).text
    assert "you play like a bot" not in shown and "message removed" in shown
    client.force_login(staff)
    assert act(client, "ban_for_a_week", report).status_code == 302
    ban = ChatBan.objects.get(player=bob)
    assert ban.by == staff
    assert timedelta(days=6, hours=23) < ban.until - timezone.now() <= timedelta(days=7)
    report.refresh_from_db()
    assert report.outcome == "banned"
    client.force_login(bob)
    response = say(client, said.match, "sorry", **HTMX)
    assert response.status_code == 400 and "You cannot write in chats until" in response.text


def test_the_change_page_offers_the_actions_and_a_day_long_mute(client, alice, bob, said):
    report = reports.report(alice, bob, "insults", "", said)
    staff = staff_member()
    client.force_login(staff)
    url = reverse("admin:games_report_change", args=[report.pk])
    page = client.get(url).text
    for action in ("remove_messages", "ban_for_a_day", "ban_for_a_week", "mark_handled"):
        assert f'value="{action}"' in page
    assert 'value="close_accounts"' not in page  # this one may not change accounts
    response = client.post(
        url, {"CHANGE_FORM-action": "ban_for_a_day", "_selected_action": [report.pk]}
    )
    assert response.status_code == 302
    ban = ChatBan.objects.get(player=bob)
    assert timedelta(hours=23) < ban.until - timezone.now() <= timedelta(days=1)
    other = reports.report(alice, bob, "other", "", None)
    act(client, "mark_handled", other)
    other.refresh_from_db()
    assert (other.outcome, other.handled_by) == ("nothing", staff)


def test_closing_a_reported_account_asks_first_and_keeps_its_games(client, alice, bob, said):
    report = reports.report(alice, bob, "cheating", "", said)
    client.force_login(staff_member(close=True))
    asked = act(client, "close_accounts", report)
    assert asked.status_code == 200 and "cannot be undone" in asked.text and ">bob<" in asked.text
    bob.refresh_from_db()
    assert bob.is_active
    done = act(client, "close_accounts", report, confirm="yes")
    assert done.status_code == 302
    bob.refresh_from_db()
    report.refresh_from_db()
    assert not bob.is_active and bob.username == f"closed-{bob.pk}"
    assert report.outcome == "closed"
    client.force_login(alice)
    shown = client.get(said.match.get_absolute_url()).text
    assert f"closed account {bob.pk}" in shown and "you play like a bot" in shown


def test_staff_see_messages_and_bans_in_the_admin(client, alice, bob, carol, said):
    waiting = open_match(alice)
    chat_rooms.post(waiting.pk, carol, "from the stands")
    staff = staff_member()
    client.force_login(staff)
    listed = client.get(reverse("admin:games_chatmessage_changelist")).text
    assert "you play like a bot" in listed and "from the stands" in listed
    page = client.get(reverse("admin:games_chatmessage_change", args=[said.pk])).text
    assert "<mark data-reported>" in page
    response = client.post(
        reverse("admin:games_chatmessage_changelist"),
        {"action": "remove_messages", "_selected_action": [said.pk]},
    )
    assert response.status_code == 302
    said.refresh_from_db()
    assert said.removed is not None
    until = timezone.now() + timedelta(days=2)
    response = client.post(
        reverse("admin:games_chatban_add"),
        {"player": carol.pk, "until_0": until.strftime("%Y-%m-%d"), "until_1": "12:00:00"},
    )
    assert response.status_code == 302
    ban = ChatBan.objects.get(player=carol)
    assert ban.by == staff
    assert "carol" in client.get(reverse("admin:games_chatban_changelist")).text


def test_the_export_holds_the_players_messages_and_reports_but_none_about_them(alice, bob, said):
    from games.services.features import export

    reports.report(alice, bob, "insults", "rude", said)
    reports.report(bob, alice, "spam", "", None)
    data = export.everything(alice)
    assert data["reports_sent"] == [
        {
            "player": "bob",
            "message": said.pk,
            "reason": "insults",
            "text": "rude",
            "at": data["reports_sent"][0]["at"],
        }
    ]
    assert export.everything(bob)["chat_messages"][0]["text"] == "you play like a bot"
    assert "spam" not in str(data)  # a report about alice is not hers to read
