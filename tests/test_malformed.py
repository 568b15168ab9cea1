"""Malformed requests against every URL of the site: never a server error, never a change.

The table covers the classes of bad input (NUL characters, numbers that are not ASCII digits
or do not fit, forms in another charset or not UTF-8, unreadable bodies); hypothesis adds
random text in every number the game pages read; every form the pages hold is posted with
each of its fields empty, within the rate limits and beyond them. All run with DEBUG off, as
in production, and as a visitor and as a player.
"""

import re
from datetime import timedelta
from html import unescape
from html.parser import HTMLParser
from urllib.parse import urljoin

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Sum
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services
from games.infra import limits
from games.models import Match, Move, Profile, Seat, Tournament
from games.services.features import puzzles, swiss_rounds, tournaments
from tests.factories import make_match, make_puzzles, play

pytestmark = pytest.mark.django_db

BAD_NUMBERS = ["²", "¹", "⑨", "٣", "1e3", "0x10", " ", "-", "99999999999999999999999", "1.5", "NaN"]
NUMBER_FIELDS = ["x", "y", "rotation", "ply", "number", "focus", "puzzle", "players", "removed"]


@pytest.fixture
def world(alice, bob, carol):
    """A bit of everything: a solo game, a running and a finished match, puzzles, an offer."""
    solo = services.start_solo(alice, seed=3)
    running = make_match(alice, bob, pace="free")
    play(running, alice)
    finished = make_match(alice, carol, pace="free", removed=4, rated=False)
    from tests.factories import play_to_end

    play_to_end(finished, [alice, carol])
    first, second, _ = make_puzzles(101, 102, 103)
    puzzles.publish_daily()  # so that visiting /daily/ has nothing to publish
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    swiss = swiss_rounds.create(
        alice,
        name="Malformed swiss",
        rounds=2,
        table_size=2,
        pace="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(swiss.pk, bob)
    Tournament.objects.filter(pk=swiss.pk).update(starts=timezone.now())
    swiss_rounds.start(swiss.pk)
    return {
        "tournament_id": swiss.pk,
        "number": 1,
        "match_id": running.pk,
        "solo": solo.pk,
        "finished": finished.pk,
        "puzzle_id": first.pk,
        "offer_id": offer.pk,
        "game": "nmbr9",
        "username": "bob",
        "uidb64": "MQ",
        "token": "set-password",
        "device_id": 1,
    }


def _patterns(resolvers, prefix=""):
    for entry in resolvers:
        if isinstance(entry, URLResolver):
            if str(entry.pattern).startswith("admin/"):
                yield "admin/", {}
                continue
            yield from _patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry.pattern.converters


def every_url(world) -> list[str]:
    urls = []
    for route, _ in _patterns(get_resolver().url_patterns):
        path = route
        for name, value in world.items():
            for kind in ("id", "username", "str", "slug", "int"):
                path = path.replace(f"<{kind}:{name}>", str(value))
            path = path.replace(f"<{name}>", str(value))
        assert "<" not in path, f"no sample value for {route}"
        urls.append("/" + path)
    return sorted(set(urls))


def snapshot() -> dict:
    """What the site stores: the rows of every model and the figures that change in play."""
    state = {model._meta.label: model.objects.count() for model in apps.get_models()}
    state.pop("sessions.Session", None)
    state.pop("games.Profile", None)  # a visit notes when the player was last seen
    state["progress"] = Seat.objects.aggregate(s=Sum("progress"))["s"]
    state["strikes"] = Seat.objects.aggregate(s=Sum("total_strikes"))["s"]
    state["states"] = sorted(Seat.objects.values_list("pk", "state"))
    state["matches"] = sorted(Match.objects.values_list("pk", "status"))
    state["moves"] = Move.objects.count()
    state["users"] = sorted(User.objects.values_list("username", "password", "is_active"))
    return state


def malformed(url: str) -> list[tuple[str, dict]]:
    """Requests to ``url`` that are bad at some level, each as (method, client arguments)."""
    form = "application/x-www-form-urlencoded"
    requests = [
        ("get", {"path": url + "?focus=%00"}),
        ("get", {"path": url + "?x=%FF%FE&y=0&rotation=0"}),
        ("get", {"path": url.rstrip("/") + "%00/"}),
        (
            "post",
            {
                "path": url,
                "data": "username=a&password=b",
                "content_type": form + "; charset=utf-16",
            },
        ),
        ("post", {"path": url, "data": "x=1", "content_type": form + "; charset=latin-1"}),
        ("post", {"path": url, "data": b"username=\xff\xfe&x=\xc3", "content_type": form}),
        ("post", {"path": url, "data": "username=%FF%FE", "content_type": form}),
        ("post", {"path": url, "data": "username=a%00b&password=x", "content_type": form}),
        (
            "post",
            {
                "path": url,
                "data": b"--x\r\nbroken",
                "content_type": "multipart/form-data; boundary=x",
            },
        ),
        (
            "post",
            {
                "path": url,
                "data": b'--x\r\nContent-Disposition: form-data; name="a\x00"\r\n\r\n1\r\n--x--',
                "content_type": "multipart/form-data; boundary=x",
            },
        ),
    ]
    for bad in BAD_NUMBERS:
        query = "&".join(f"{field}={bad}" for field in NUMBER_FIELDS)
        requests.append(("get", {"path": f"{url}?{query}"}))
    return requests


def _clients(alice) -> list[tuple[str, Client]]:
    player = Client(raise_request_exception=False)
    player.force_login(alice)
    return [("visitor", Client(raise_request_exception=False)), ("player", player)]


class Forms(HTMLParser):
    """The forms a page posts: each one's address and the fields it sends as the page fills
    them in (a named button included, as if pressed), with the names of all its fields."""

    def __init__(self, url: str):
        super().__init__(convert_charrefs=True)
        self.url = url
        self.found: list[tuple[str, dict[str, list[str]], list[str]]] = []
        self.form: tuple[str, dict[str, list[str]], list[str]] | None = None
        self.select: str | None = None
        self.options: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            posted = (attrs.get("method") or "get").lower() == "post" or "hx-post" in attrs
            action = attrs.get("hx-post") or attrs.get("action") or self.url
            self.form = (urljoin(self.url, action), {}, []) if posted else None
            return
        if tag == "option" and self.select:
            self.options.append((attrs.get("value", ""), "selected" in attrs))
        name = attrs.get("name")
        if self.form is None or not name:
            return
        _action, sent, names = self.form
        if name not in names:
            names.append(name)
        if tag == "input":
            kind = (attrs.get("type") or "text").lower()
            if kind not in ("checkbox", "radio"):
                sent.setdefault(name, []).append(attrs.get("value") or "")
            elif "checked" in attrs:
                sent.setdefault(name, []).append(attrs.get("value") or "on")
        elif tag == "button":
            sent.setdefault(name, []).append(attrs.get("value") or "")
        elif tag == "textarea":
            sent.setdefault(name, []).append("")
        elif tag == "select":
            self.select, self.options = name, []

    def handle_endtag(self, tag):
        if tag == "select" and self.form is not None and self.select:
            chosen = [value for value, selected in self.options if selected] or [
                value for value, _selected in self.options[:1]
            ]
            self.form[1][self.select] = chosen
            self.select = None
        elif tag == "form" and self.form is not None:
            self.found.append(self.form)
            self.form = None


def empty_fields(url: str, html: str) -> list[tuple[str, dict[str, list[str]]]]:
    """Posts of the forms on a page: every field empty, then each field empty alone."""
    parser = Forms(url)
    parser.feed(html)
    posts = []
    for action, sent, names in parser.found:
        names = [name for name in names if name != "csrfmiddlewaretoken"]
        posts.append((action, {name: [""] for name in names}))
        posts.extend((action, {**sent, name: [""]}) for name in names)
    return posts


def test_no_malformed_request_to_any_url_is_a_server_error_or_changes_anything(
    world, alice, settings
):
    settings.DEBUG = False
    urls = every_url(world)
    assert len(urls) >= 30, urls
    before = snapshot()
    failures = []
    for who, client in _clients(alice):
        for url in urls:
            for method, arguments in malformed(url):
                response = getattr(client, method)(**arguments)
                if response.status_code >= 500:
                    failures.append((who, method, arguments["path"], response.status_code))
    assert failures == []
    assert snapshot() == before


@pytest.mark.parametrize(
    "path",
    [
        "/@/%00/",
        "/@/a%00b/",
        "/game/99999999999999999999999/",
        "/game/٣/",
        "/puzzle/-1/",
        "/challenge/offer/0x1/",
    ],
)
def test_bad_ids_and_names_in_the_address_are_not_found_or_refused(client, alice, path):
    assert client.get(path).status_code in (400, 404)


def test_numbers_that_are_not_ascii_digits_are_refused_with_a_message(client, world, alice):
    client.force_login(alice)
    solo = world["solo"]
    for bad in ("²", "¹", "⑨"):
        response = client.get(f"/game/{solo}/?focus={bad}")
        assert response.status_code == 400
        assert b"focus: not a player." in response.content
    response = client.get(f"/game/{solo}/?x=٣&y=0&rotation=0")
    assert response.status_code == 400
    assert b"x: Enter a whole number." in response.content


@pytest.mark.parametrize(
    "body, content_type, reason",
    [
        ('{"email_on_move": false}', "application/json", b"forms are sent as"),
        ("email_on_move=off", "text/plain", b"forms are sent as"),
        ("", "", b"forms are sent as"),
        (
            b'--x\r\nContent-Disposition: form-data; name="language"\r\n\r\n\xff\xfe\r\n--x--',
            "multipart/form-data; boundary=x",
            b"not UTF-8",
        ),
        (
            b'--x\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n'
            + b"\x01" * 4000
            + b"\r\n--x--",
            "multipart/form-data; boundary=x",
            b"takes no files",
        ),
        (
            b'--x\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n'
            + b"\x01" * 3_000_000
            + b"\r\n--x--",
            "multipart/form-data; boundary=x",
            b"too large",
        ),
    ],
)
def test_a_post_that_is_not_a_utf8_form_without_files_changes_nothing(
    client, alice, body, content_type, reason
):
    client.force_login(alice)
    profile, _made = Profile.objects.update_or_create(player=alice, defaults={"language": "de"})
    response = client.generic("POST", "/settings/", body, content_type=content_type)
    assert response.status_code == 400 and reason in response.content
    profile.refresh_from_db()
    assert profile.language == "de" and profile.email_on_move


@pytest.mark.parametrize(
    "body",
    [b"--x\r\nbroken", b'--x\r\nContent-Disposition: form-data; name="game"\r\n\r\nnmbr9'],
)
def test_a_multipart_form_cut_off_before_its_end_is_refused_not_read_as_empty(client, body):
    """Read as an empty form, it would be a bare POST: a visitor's "play now"."""
    response = client.generic(
        "POST", "/solo/new/", body, content_type="multipart/form-data; boundary=x"
    )
    assert response.status_code == 400 and b"the form could not be read" in response.content
    assert Match.objects.count() == 0


def test_a_form_in_another_charset_is_refused_before_the_csrf_check(client, alice):
    response = client.post(
        "/accounts/login/",
        data="username=alice&password=a-Long-pa55word",
        content_type="application/x-www-form-urlencoded; charset=utf-16",
    )
    assert response.status_code == 400
    assert b"forms must be sent in UTF-8" in response.content
    assert "_auth_user_id" not in client.session


def test_a_malformed_request_is_told_why_in_the_browsers_language(client):
    german = client.get("/@/a%00b/", HTTP_ACCEPT_LANGUAGE="de")
    assert german.status_code == 400
    assert german.text == "Ungültige Anfrage: die Adresse enthält ein NUL-Zeichen.\n"
    english = client.post("/accounts/login/", data="x", content_type="text/plain")
    assert english.status_code == 400
    assert english.text.startswith("Bad request: forms are sent as application/")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    field=st.sampled_from(["number", "x", "y", "rotation", "ply"]),
    value=st.text(max_size=12),
)
def test_random_text_in_a_placement_never_fails_or_places_a_wrong_tile(
    client, world, alice, field, value
):
    client.force_login(alice)
    match_id = world["solo"]
    before = snapshot()
    data = {"number": "0", "x": "0", "y": "0", "rotation": "0", "ply": "0", field: value}
    preview = client.get(f"/game/{match_id}/", data)
    assert preview.status_code in (200, 400)
    response = client.post(f"/game/{match_id}/play/", data)
    assert response.status_code in (302, 400)
    if response.status_code == 400:
        assert snapshot() == before


@pytest.fixture
def more_world(world, alice, bob, carol):
    """Pages with forms of their own: the solo game and the finished match, an nmbrs!
    match, a match waiting for its players, an invitation link's page, the forms of nmbrs!"""
    from games.models import InviteLink
    from games.services.features import follows
    from tests.factories import nmbrs_match

    nmbrs = nmbrs_match(alice, bob)
    waiting = services.create_match(
        bob, players=3, time_control="1d", rated=True, options={}, invite=["alice"], open=True
    )
    linked = services.create_match(carol, players=3, time_control="1d", rated=True, link=True)
    follows.follow(alice, bob)
    return [
        f"/game/{world['solo']}/",
        f"/game/{world['finished']}/",
        f"/game/{nmbrs.pk}/",
        f"/game/{waiting.pk}/",
        f"/join/{InviteLink.objects.get(match=linked).token}/",
        "/players/?q=b",
        "/match/new/?game=nmbrs",
        "/solo/new/?game=nmbrs",
        "/learn/nmbrs/",
    ]


@pytest.mark.parametrize("limited", [False, True], ids=["within-limits", "over-the-limits"])
def test_no_form_of_the_site_posted_with_empty_fields_is_a_server_error(
    world, more_world, alice, settings, monkeypatch, limited
):
    """Every form on every page, as a visitor and as a player: each field empty in turn and
    all at once. None answers 5xx; one refused (4xx) changes nothing. Each post is undone
    afterwards, so each form meets the world its page was drawn in."""
    settings.DEBUG = False
    posts = {}
    for who, client in _clients(alice):
        pages = every_url(world) + more_world
        for url in pages:
            page = client.get(url)
            if page.status_code != 200 or "html" not in page.get("Content-Type", ""):
                continue
            found = [(url, page.text)]
            # A game page with a tile placed on trial: its form to confirm the move.
            trial = re.search(r'(?:href|hx-get)="(/game/[0-9]+/\?x=[^"]*)"', page.text)
            if trial:
                found.append((unescape(trial.group(1)), client.get(unescape(trial.group(1))).text))
            for shown, html in found:
                for action, data in empty_fields(shown, html):
                    key = (who, action, tuple(sorted((k, tuple(v)) for k, v in data.items())))
                    posts[key] = data
        # Forms of states the world does not show: building a reserved tile, a rematch.
        for action, names in (
            (f"/game/{world['match_id']}/commit/", ["commitment", "ply"]),
            (f"/game/{world['finished']}/rematch/", []),
        ):
            posts[(who, action, ())] = {name: [""] for name in names}
    actions = {action for _who, action, _data in posts}
    for expected in ("/signup/", "/accounts/login/", "/match/new/", "/solo/new/"):
        assert expected in actions, sorted(actions)
    for expected in ("/challenge/new/", "/settings/", "/play/", "/join/", "/resign/"):
        assert any(expected in action for action in actions), sorted(actions)
    if limited:
        monkeypatch.setattr(limits, "over_limit", lambda *args, **kwargs: 7)
    failures = []
    clients = dict(_clients(alice))
    for (who, action, _key), data in posts.items():
        client = clients[who]
        if who == "player":
            client.force_login(alice)  # a form may have logged the player out
        with transaction.atomic():
            before = snapshot()
            response = client.post(action, data)
            if response.status_code >= 500:
                failures.append((who, action, data, response.status_code))
            elif response.status_code >= 400 and snapshot() != before:
                failures.append((who, action, data, "refused, but changed the site"))
            transaction.set_rollback(True)
    assert failures == []
    assert len(posts) >= 100, len(posts)


def _site_forms() -> list[type]:
    """Every form class of the site (the admin's aside)."""
    from django import forms

    import games.forms
    import games.infra.notifications
    import games.learn
    import games.web  # noqa: F401  (the games' forms)

    found, todo = [], [forms.BaseForm]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("games.") and cls.__module__ != "games.admin":
            found.append(cls)
    return found


def test_every_optional_choice_of_every_form_is_read_by_the_strict_reader(db):
    """An optional choice sent empty means its default, to the code and to the page alike
    (a plain ChoiceField hands on "", which a page once put into an address: a 500)."""
    from django import forms
    from django.contrib.auth.models import User

    from games.forms import PasswordCheck
    from games.inputs import OptionalChoiceField

    checked, plain = 0, []
    for cls in _site_forms():
        form = cls(User()) if issubclass(cls, PasswordCheck) else cls()  # those act for a player
        for name, field in form.fields.items():
            if isinstance(field, forms.ChoiceField) and not field.required:
                checked += 1
                if not isinstance(field, (OptionalChoiceField, forms.MultipleChoiceField)):
                    plain.append(f"{cls.__module__}.{cls.__name__}.{name}")
    assert plain == []
    assert checked >= 8


def test_a_new_match_posted_with_an_empty_game_is_of_the_pages_game(client, alice, settings):
    settings.DEBUG = False
    client.raise_request_exception = False
    client.force_login(alice)
    data = {"game": "", "players": "2", "time_control": "1d", "invite": ""}
    response = client.post("/match/new/", data)  # no invitee, not open: refused
    assert response.status_code == 400 and 'data-game="nmbr9"' in response.text
    assert Match.objects.count() == 0
    response = client.post("/match/new/?game=nmbrs", {**data, "open": "on"})
    assert response.status_code == 302
    assert Match.objects.get().game == "nmbrs"


def test_a_new_match_over_the_limit_with_an_empty_game_is_refused_not_a_server_error(
    client, alice, settings, monkeypatch
):
    settings.DEBUG = False
    client.raise_request_exception = False
    client.force_login(alice)
    monkeypatch.setattr(limits, "over_limit", lambda *args, **kwargs: 7)
    data = {"game": "", "players": "2", "time_control": "1d", "open": "on"}
    response = client.post("/match/new/", data)
    assert response.status_code == 429 and "Try again in 7 minutes" in response.text
    assert Match.objects.count() == 0


def test_an_unknown_bot_is_refused_before_a_visitor_becomes_a_guest(client):
    response = client.post("/solo/new/", {"game": "nmbr9", "bot": "grandmaster"})
    assert response.status_code == 400 and "There is no grandmaster bot." in response.text
    assert User.objects.count() == 0 and Match.objects.count() == 0
