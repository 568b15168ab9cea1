"""German and English: the catalogue, choosing the language, the switch, e-mails."""

import contextlib
import os
import re
import shutil
from datetime import UTC
from html.parser import HTMLParser
from importlib import import_module
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.core import mail
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from games.infra.notifications import send_due
from games.management.commands.compile_translations import catalogues
from games.models import Profile
from tests.factories import make_match, seat_of

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "de" / "LC_MESSAGES" / "django.po"
#: Every German catalogue: the site's, and each game package's own.
CATALOGUES = [po for po in catalogues() if po.parent.parent.name == "de"]
#: The tests that read the catalogue, or rewrite it with makemessages, in one process of a
#: parallel run, with the others that read or write the working tree's files
#: (tests/test_run_script.py, tests/test_release.py): none sees another's half-written file.
WORKING_TREE = pytest.mark.xdist_group("working_tree")


def test_each_game_package_has_a_catalogue_of_its_own():
    assert CATALOGUE in CATALOGUES
    for package in settings.GAME_PACKAGES:
        folder = Path(import_module(package).__file__).parent
        assert folder / "locale" / "de" / "LC_MESSAGES" / "django.po" in CATALOGUES, package


@WORKING_TREE
@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: str(p.relative_to(settings.BASE_DIR)))
def test_every_message_of_a_german_catalogue_is_translated_and_none_is_fuzzy(path):
    catalogue = read_po(path.open("rb"), locale="de")
    messages = [m for m in catalogue if m.id]
    assert len(messages) > 100
    untranslated = [
        m.id for m in messages if not (all(m.string) if isinstance(m.string, tuple) else m.string)
    ]
    fuzzy = [m.id for m in messages if m.fuzzy]
    assert untranslated == [] and fuzzy == []


@WORKING_TREE
def test_every_message_the_site_writes_is_in_the_german_catalogue(tmp_path):
    """What ``makemessages`` finds in the code and templates (README: Languages) is in the
    catalogue, and the catalogue keeps nothing they no longer say. It runs on a copy of the
    site's code: it writes passing files beside the templates (``play.html.py``), which
    other tests reading games/ at the same time must not see."""
    if shutil.which("xgettext") is None:
        if os.environ.get("CI"):
            pytest.fail("GNU gettext is not installed (apt-get install gettext).")
        pytest.skip("GNU gettext is not installed (apt-get install gettext).")
    base = Path(settings.BASE_DIR)
    copy = tmp_path / "site"
    for folder in ("games", "templates", "locale", "nmbr9site"):
        shutil.copytree(
            base / folder,
            copy / folder,
            ignore=shutil.ignore_patterns("__pycache__", "*.mo", "*.so", "*.c"),
        )
    with override_settings(LOCALE_PATHS=[copy / "locale"]), contextlib.chdir(copy):
        call_command(
            "makemessages",
            locale=["de"],
            extensions=["html", "txt", "py", "svg"],
            ignore_patterns=["staticfiles"],
            no_location=True,
            verbosity=0,
        )
    missing, stale = [], []
    for path in CATALOGUES:
        found = read_po((copy / path.relative_to(base)).open("rb"), locale="de")
        catalogue = read_po(path.open("rb"), locale="de")
        missing += [(path.name, i) for i in ids(found) - ids(catalogue)]
        stale += [(path.name, i) for i in ids(catalogue) - ids(found)]
    assert sorted(missing, key=str) == [] and sorted(stale, key=str) == []


def ids(messages) -> set:
    return {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in messages if m.id}


PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|<[^>]+>")


@WORKING_TREE
@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: str(p.relative_to(settings.BASE_DIR)))
def test_every_german_message_keeps_the_placeholders_and_markup_of_its_english(path):
    """A translation taken from a similar message (a guess) shows in its placeholders."""
    wrong = []
    for m in read_po(path.open("rb"), locale="de"):
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        for string in strings:
            found = set(PLACEHOLDER.findall(string))
            # A singular may leave the count out ("one game"); nothing else may differ.
            if found != wanted and not (len(strings) > 1 and found < wanted):
                wrong.append((ids[0], string))
    assert wrong == []


def test_the_compiled_catalogues_are_the_ones_in_use():
    for path in CATALOGUES:
        assert path.with_suffix(".mo").exists(), "./run compiles every catalogue with Babel"


def test_the_browser_language_is_used_when_nothing_is_saved(client, db):
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


def test_the_settings_offer_the_browsers_language_in_the_players_language(client, alice):
    client.force_login(alice)
    page = client.get(reverse("settings"), HTTP_ACCEPT_LANGUAGE="de").text
    assert '<option value="" selected>Die Sprache deines Browsers</option>' in page
    assert "Select an option" not in page and "----" not in page
    english = client.get(reverse("settings"), HTTP_ACCEPT_LANGUAGE="en").text
    assert '<option value="" selected>Your browser&#x27;s language</option>' in english


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


def test_notifications_are_said_in_the_language_they_are_read_in(client, alice, bob):
    """Kept without words, a notification is said in the language of the page reading it,
    whatever the language was when it was made."""
    Profile.objects.update_or_create(player=bob, defaults={"language": "de"})
    with translation.override("en"):
        match = make_match(alice, bob)
    client.force_login(bob)
    page = client.get(reverse("notifications")).text  # bob's saved language
    assert f"Du bist am Zug in Partie #{match.pk}." in page
    assert "alice lädt dich zu einer Partie mit 2 Spielern ein." in page
    assert "alice invites you" not in page and "Your move in" not in page
    client.force_login(alice)
    english = client.get(reverse("notifications"), HTTP_ACCEPT_LANGUAGE="en").text
    assert f"Your move in Match #{match.pk}." in english
    german = client.get(reverse("notifications"), HTTP_ACCEPT_LANGUAGE="de").text
    assert f"Du bist am Zug in Partie #{match.pk}." in german


def test_the_match_log_and_the_replay_read_in_german(client, alice, bob):
    from tests.factories import play_to_end

    match = make_match(alice, bob, seed=5)
    play_to_end(match, [alice, bob])
    client.force_login(alice)
    page = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de")
    assert "Verlauf der Partie" in page.text and "Runde 20" in page.text
    assert "alice hat eine " in page.text and " auf Ebene 0 gelegt." in page.text
    replay = client.get(reverse("replay", args=[match.pk]), HTTP_ACCEPT_LANGUAGE="de")
    assert "Nach Runde 20 von 20" in replay.text and "Schritt für Schritt" in replay.text
    assert "Punkte nach Runden" in replay.text and " nach Runde 20</title>" in replay.text
    assert "Automatisch abspielen" in replay.text
    steps = re.findall(r'title="place [^"]+" data-notation data-replay-step>([^<]+)<', replay.text)
    assert len(steps) == 2 and all(
        re.fullmatch(r"\w+ hat eine \d auf Ebene \d gelegt\.", step) for step in steps
    ), steps


def test_the_nmbr9_options_read_in_german(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_solo"), HTTP_ACCEPT_LANGUAGE="de")
    for words in ("Lückenfüller", "Sonderplättchen im Spiel", "2 aus 3", "Spiel starten"):
        assert words in page.text
    refused = client.post(
        reverse("new_solo"), {"game": "nmbr9", "breaking": "chosen"}, HTTP_ACCEPT_LANGUAGE="de"
    )
    assert refused.status_code == 400 and "Wähle mindestens ein Sonderplättchen." in refused.text


# ---------------------------------------------------------------- templates say nothing raw

#: Words that are the same in every language: names and notation.
SAME_IN_EVERY_LANGUAGE = {"nmbr9site", "NMBR", "nmbrs", "Elo", "UTC", "English", "Deutsch"}
#: Attributes whose values a reader sees or hears.
READ_ATTRIBUTES = {"title", "alt", "placeholder", "aria-label", "label"}


def _without_translations(source: str) -> str:
    """A template with its comments, translated texts and template tags taken out (a
    placeholder, NUL, stands for what prints something)."""
    source = re.sub(r"{#.*?#}", " ", source, flags=re.S)
    source = re.sub(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", " ", source, flags=re.S)
    blocks = r"{%\s*blocktranslate.*?{%\s*endblocktranslate\s*%}"
    source = re.sub(blocks, "\x00", source, flags=re.S)
    source = re.sub(r"{%\s*translate\s.*?%}", "\x00", source, flags=re.S)
    source = re.sub(r"{%.*?%}", " ", source, flags=re.S)
    return re.sub(r"{{.*?}}", "\x00", source, flags=re.S)


class _ReadText(HTMLParser):
    """The texts of a page a reader sees: text outside scripts and styles, and the values
    of ``READ_ATTRIBUTES`` (an element marked ``translate="no"`` holds notation)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.hidden += 1
        if ("translate", "no") in attrs:
            return
        self.texts += [value for name, value in attrs if name in READ_ATTRIBUTES and value]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.texts.append(data)


def _raw_words(text: str) -> list[str]:
    tokens = re.findall(r"[A-Za-zÄÖÜäöüß][\wÄÖÜäöüß]+", text)
    return [t for t in tokens if t not in SAME_IN_EVERY_LANGUAGE and not t[1:].isdigit()]


def _shown(text: str) -> str:
    return text.replace("\x00", "…").strip()


def test_no_template_holds_text_outside_a_translation_tag():
    raw = {}
    for path in sorted((Path(settings.BASE_DIR) / "templates").rglob("*")):
        if path.suffix not in (".html", ".svg", ".txt"):
            continue
        reader = _ReadText()
        reader.feed(_without_translations(path.read_text()))
        found = [_shown(text) for text in reader.texts if _raw_words(text)]
        if found:
            raw[path.name] = found
    assert raw == {}


def test_the_check_of_templates_finds_raw_text():
    reader = _ReadText()
    page = '{% translate "Hello" %} <p title="Say hi">{{ name }} has won</p>'
    reader.feed(_without_translations(page + '<input translate="no" placeholder="lay 1,2,3">'))
    assert [_shown(t) for t in reader.texts if _raw_words(t)] == ["Say hi", "… has won"]


def test_the_rules_refusals_of_a_turn_read_in_german(client, alice, bob):
    from games import services
    from games.models import Move
    from tests.factories import nmbrs_match

    client.force_login(alice)
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    solo = services.start_solo(alice, seed=3)
    refused = client.post(reverse("play", args=[solo.pk]), {"turn": "reject", "ply": 0}, **german)
    assert refused.status_code == 400
    assert "Nur in der Variante „2 aus 3“ darfst du eine Karte verwerfen." in refused.text

    match = nmbrs_match(alice, bob)
    refused = client.post(reverse("play", args=[match.pk]), {"move": "draw", "ply": 0}, **german)
    assert refused.status_code == 400 and "Nimm zuerst die abgelegte Karte (" in refused.text
    english = client.post(reverse("play", args=[match.pk]), {"move": "draw", "ply": 0})
    assert "First take the discard (" in english.text
    assert Move.objects.filter(match__in=[solo, match]).count() == 0


def test_the_help_pages_exist_in_german(client):
    nmbr9 = client.get(reverse("help", args=["nmbr9"]), HTTP_ACCEPT_LANGUAGE="de")
    for words in ("Wie NMBR 9 gespielt wird", "Lückenfüller", "Variante „2 aus 3“", "Auslage"):
        assert words in nmbr9.text
    assert "Every player builds" not in nmbr9.text and "Gap fillers" not in nmbr9.text
    nmbrs = client.get(reverse("help", args=["nmbrs"]), HTTP_ACCEPT_LANGUAGE="de")
    assert "Wie nmbrs! gespielt wird" in nmbrs.text


@pytest.mark.worker
def test_a_password_reset_mail_goes_out_in_the_readers_language(celery_worker, client, alice, bob):
    from tests.factories import wait_for

    Profile.objects.update_or_create(player=bob, defaults={"language": "en"})
    for user in (alice, bob):
        response = client.post(
            reverse("password_reset"), {"email": user.email}, HTTP_ACCEPT_LANGUAGE="de"
        )
        assert response.status_code == 302
    wait_for(lambda: len(mail.outbox) == 2)  # sent by the worker
    (to_alice,) = [m for m in mail.outbox if alice.email in m.to]
    assert to_alice.subject == "Setze dein nmbr9site-Passwort zurück"  # asked in German
    assert "Hallo alice," in to_alice.body and "/accounts/reset/" in to_alice.body
    (to_bob,) = [m for m in mail.outbox if bob.email in m.to]
    assert to_bob.subject == "Reset your nmbr9site password"  # saved: English
    assert "Hello bob," in to_bob.body


def test_a_missing_page_says_so_in_the_readers_language(client, db):
    german = client.get("/game/999999/replay/", HTTP_ACCEPT_LANGUAGE="de")
    assert german.status_code == 404 and "Nicht gefunden" in german.text
    assert "Zurück zur Startseite" in german.text
    english = client.get("/game/999999/replay/")
    assert english.status_code == 404 and "Not found" in english.text


def test_dates_are_written_the_readers_way(client, alice, bob):
    from datetime import datetime

    from games.models import Match

    match = make_match(alice, bob, time_control="1d")
    finished = datetime(2026, 3, 5, 14, 30, tzinfo=UTC)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished=finished)
    match.seats.update(finished=finished)  # as finishing a match dates its seats
    client.force_login(alice)
    german = client.get(reverse("profile", args=["alice"]), HTTP_ACCEPT_LANGUAGE="de")
    assert "05.03.2026 14:30" in german.text
    english = client.get(reverse("profile", args=["alice"]), HTTP_ACCEPT_LANGUAGE="en")
    assert "03/05/2026 2:30 p.m." in english.text


def test_pictures_keep_their_coordinates_in_every_language():
    """SVG lengths are numbers with a decimal point whatever the reader's language: a
    German "140,0" is no length and the browser drops the shape."""
    from django.utils import translation

    from games.web.charts import rating_chart_svg, score_chart

    coordinate = re.compile(r'\s(?:x|y|x1|x2|y1|y2|cx|cy)="([^"]*)"')
    with translation.override("de"):
        pictures = [
            rating_chart_svg([1512.5, 1490.25, 1533.75], start=1500),
            score_chart([("alice", [0, 3, 7, 12]), ("Par", [0, 4, 9, 15])], 3, 2, reference="Par"),
        ]
    for picture in pictures:
        values = coordinate.findall(picture)
        assert any("." in value for value in values)
        for value in values:
            assert re.fullmatch(r"-?\d+(?:\.\d+)?", value), value


def test_a_player_who_saved_no_language_is_written_to_in_the_one_they_use_the_site_in(
    client, alice, bob
):
    """No saved language means the browser's: the language the player last used the site in
    is noted, and their e-mails are written in it."""
    from games.infra.notifications import send_password_reset
    from games.models import Notification

    Profile.objects.get_or_create(player=bob)
    client.force_login(bob)
    client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de")
    assert Profile.objects.get(player=bob).seen_language == "de"
    match = make_match(alice, bob)
    # Notifications keep no words: they are said in the language of the page reading them.
    told = Notification.objects.filter(match=match, player=bob).get(kind="move")
    assert (told.message, told.text) == ("Your move in %(match)s.", "")
    send_password_reset(bob.email)
    send_password_reset(alice.email)
    subjects = {m.to[0]: m.subject for m in mail.outbox}
    assert subjects[bob.email] == "Setze dein nmbr9site-Passwort zurück"
    assert subjects[alice.email] == "Reset your nmbr9site password"
    # Back in English (a browser set to it, or the footer's switch): English again.
    client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en")
    assert Profile.objects.get(player=bob).seen_language == "en"
    # A saved language wins over the one last used.
    Profile.objects.filter(player=bob).update(language="de")
    assert Profile.languages_of([bob.pk, alice.pk]) == {bob.pk: "de"}
