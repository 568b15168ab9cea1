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
