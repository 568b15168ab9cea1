"""German and English: the catalogue, choosing the language, the switch, e-mails."""

from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.core import mail
from django.urls import reverse

from games.models import Profile
from games.notifications import send_due
from tests.test_match_services import make_match, seat_of

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "de" / "LC_MESSAGES" / "django.po"


def test_every_message_of_the_german_catalogue_is_translated_and_none_is_fuzzy():
    catalogue = read_po(CATALOGUE.open("rb"), locale="de")
    messages = [m for m in catalogue if m.id]
    assert len(messages) > 100
    untranslated = [
        m.id for m in messages if not (all(m.string) if isinstance(m.string, tuple) else m.string)
    ]
    fuzzy = [m.id for m in messages if m.fuzzy]
    assert untranslated == [] and fuzzy == []


def test_the_compiled_catalogue_is_the_one_in_use():
    assert CATALOGUE.with_suffix(".mo").exists(), "./run compiles locale/ with Babel"


def test_the_browser_language_is_used_when_nothing_is_saved(client):
    german = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
    assert '<html lang="de">' in german.text and "Bestenliste" in german.text
    english = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert '<html lang="en">' in english.text and "Leaderboard" in english.text


def test_a_saved_language_wins_over_the_browsers(client, alice):
    Profile.objects.update_or_create(player=alice, defaults={"language": "de"})
    client.force_login(alice)
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en-US,en")
    assert "Einstellungen" in page.text and "Abmelden" in page.text

    response = client.post(reverse("settings"), {"email_on_move": "on", "language": "en"})
    assert response.status_code == 302
    page = client.get(reverse("settings"), HTTP_ACCEPT_LANGUAGE="de")
    assert "Your settings are saved." in page.text and "Log out" in page.text
    assert Profile.objects.get(player=alice).language == "en"


def test_the_footer_switch_works_for_visitors_and_saves_a_players_choice(client, alice):
    page = client.get(reverse("lobby"))
    assert "data-language-switch" in page.text and 'value="de" lang="de"' in page.text
    response = client.post(reverse("language"), {"language": "de", "next": reverse("lobby")})
    assert response.status_code == 302 and response.url == reverse("lobby")
    assert "Bestenliste" in client.get(reverse("lobby")).text  # the cookie says German

    client.force_login(alice)
    client.post(reverse("language"), {"language": "de", "next": "/"})
    assert Profile.objects.get(player=alice).language == "de"
    client.cookies.pop(settings.LANGUAGE_COOKIE_NAME)
    assert "Bestenliste" in client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").text


def test_an_unknown_language_changes_nothing(client, alice):
    client.force_login(alice)
    response = client.post(reverse("language"), {"language": "xx", "next": "/"})
    assert response.status_code == 302
    assert not Profile.objects.filter(player=alice).exclude(language="").exists()


@pytest.mark.parametrize(
    ("language", "subject"), [("de", "Du bist am Zug in Partie #"), ("", "Your move in Match #")]
)
def test_e_mails_go_out_in_the_recipients_language(alice, bob, language, subject):
    Profile.objects.update_or_create(player=bob, defaults={"language": language})
    match = make_match(alice, bob)
    seat = seat_of(match, bob)
    assert send_due(seat.pk)
    (message,) = [m for m in mail.outbox if bob.email in m.to]
    assert message.subject.startswith(subject)


def test_a_solo_game_and_its_refusals_read_in_german(client, alice):
    from games import services

    client.force_login(alice)
    match = services.start_solo(alice, seed=3)
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    page = client.get(match.get_absolute_url(), **german)
    for words in ("Runde <strong>1</strong> von 20", "Dein Plättchen:", "Passt auf Ebene 0"):
        assert words in page.text
    for words in ("Your tile", "Round <strong>", "Confirm"):
        assert words not in page.text
    record = services.load(match)
    number = record.state.current_number(0)
    services.play(match.pk, alice, f"place {number}@0,0r0", record.ply)
    # the next tile right on top of a single tile: the rules' reason, in German
    page = client.get(match.get_absolute_url(), {"x": 0, "y": 0, "rotation": 0}, **german)
    assert "data-verdict" in page.text
    assert any(
        reason in page.text
        for reason in ("Überhang", "braucht zwei Plättchen darunter", "nicht angrenzend", "Lücke")
    )


def test_durations_and_deadlines_read_in_german(client, alice, bob):
    match = make_match(alice, bob, time_control="1d")
    client.force_login(alice)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de")
    assert "1 Tag pro Zug" in page.text and "gewertet" in page.text
    assert "UTC)" in page.text and "(bis " in page.text and 'data-up="Zeit abgelaufen"' in page.text


def test_the_forms_labels_and_choices_follow_the_page_language(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_match"), HTTP_ACCEPT_LANGUAGE="de")
    for words in ("Zeit pro Zug", "3 Tage", "2 Spieler", "Gewertet", "Partie erstellen"):
        assert words in page.text
    english = client.get(reverse("new_match"), HTTP_ACCEPT_LANGUAGE="en")
    assert "Time per move" in english.text and "2 players" in english.text


def test_a_refused_request_says_why_in_german(client, alice):
    client.force_login(alice)
    data = {"players": "2", "pace": "rounds", "time_control": "1d", "removed": "0"}
    data |= {"invite": "nobody", "open": "on"}
    page = client.post(reverse("new_match"), data, HTTP_ACCEPT_LANGUAGE="de")
    assert page.status_code == 400 and "Kein Spieler heißt nobody." in page.text


def test_notifications_are_written_in_each_readers_language(alice, bob):
    from games.models import Notification

    Profile.objects.update_or_create(player=bob, defaults={"language": "de"})
    match = make_match(alice, bob)
    told = Notification.objects.filter(match=match)
    moves = dict(told.filter(kind="move").values_list("player__username", "text"))
    assert moves["bob"] == f"Du bist am Zug in Partie #{match.pk}."
    assert moves["alice"] == f"Your move in Match #{match.pk}."
    invitation = told.get(player=bob, kind="info").text
    assert invitation == "alice lädt dich zu einer Partie mit 2 Spielern ein."


def test_the_match_log_and_the_replay_read_in_german(client, alice, bob):
    from tests.test_match_services import play_to_end

    match = make_match(alice, bob, seed=5)
    play_to_end(match, [alice, bob])
    client.force_login(alice)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de")
    assert "Verlauf der Partie" in page.text and "Runde 20" in page.text
    assert "alice hat eine " in page.text and " auf Ebene 0 gelegt." in page.text
    replay = client.get(reverse("replay", args=[match.pk]), HTTP_ACCEPT_LANGUAGE="de")
    assert "Nach Runde 20 von 20" in replay.text and "Schritt für Schritt" in replay.text


def test_the_nmbr9_options_read_in_german(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_solo"), HTTP_ACCEPT_LANGUAGE="de")
    for words in ("Lückenfüller", "Sonderplättchen im Spiel", "2 aus 3", "Spiel starten"):
        assert words in page.text
    refused = client.post(
        reverse("new_solo"), {"game": "nmbr9", "breaking": "chosen"}, HTTP_ACCEPT_LANGUAGE="de"
    )
    assert refused.status_code == 400 and "Wähle mindestens ein Sonderplättchen." in refused.text
