"""Middleware of the site: the probes of a load balancer and of Prometheus, counting
requests, refusing malformed requests before anything reads them, noting when a player was
last on the site, and the page of whatever is hidden from the viewer."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext, gettext_noop

from games.infra import health, metrics
from games.services.match.visibility import Hidden

if TYPE_CHECKING:
    from django.contrib.auth.models import User

_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _bad(request: HttpRequest, reason: str) -> HttpResponse:
    """A plain 400 saying ``reason`` (a message id) in the browser's language: no template,
    no session, nothing that could trip over the request."""
    with translation.override(translation.get_language_from_request(request)):
        text = gettext("Bad request: %(reason)s") % {"reason": gettext(reason)}
    return HttpResponse(f"{text}\n", status=400, content_type="text/plain; charset=utf-8")


def _undecodable(text: str) -> bool:
    """Whether percent-escapes in ``text`` stand for bytes that are not UTF-8."""
    try:
        parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        return True
    return False


def _length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _has(values, character: str) -> bool:
    """Whether ``character`` is in any name or value of a query or form."""
    return any(character in key or any(character in v for v in vs) for key, vs in values.lists())


class Probes:
    """Answer /healthz, /readyz and /metrics before any other middleware runs: a load
    balancer's or Prometheus's request needs no host check, https redirect, session, login,
    language or rate limit, and must be answered while the database is away. /metrics
    answers only the addresses and the token the settings allow (others get 403)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            if request.path == "/healthz":
                return health.healthz()
            if request.path == "/readyz":
                return health.readyz()
            if request.path == "/metrics":
                return _metrics(request)
        return self.get_response(request)


def _metrics(request: HttpRequest) -> HttpResponse:
    if not metrics.allowed(request):
        response = HttpResponse("Forbidden\n", status=403, content_type="text/plain")
    else:
        body, content_type = metrics.exposition()
        response = HttpResponse(body, content_type=content_type)
    add_never_cache_headers(response)
    return response


class CountRequests:
    """Count each request by the name of its view (``metrics.UNRESOLVED`` when the address
    matched none) and status, and time it."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        start = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = match.view_name if match is not None else metrics.UNRESOLVED
        metrics.request_done(view, response.status_code, time.perf_counter() - start)
        return response


class RejectMalformedRequests:
    """Answer 400 to a request no view should see: a NUL character in the path, query or
    form, a query or form that is not UTF-8, a body that cannot be parsed, a POST that is not
    a form (every POST of the site is one), or a file (the site takes none).

    Placed first, so that no other middleware (CSRF reads the form) and no error page
    trips over such a request.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        reason = self.problem(request)
        if reason:
            return _bad(request, reason)
        return self.get_response(request)

    @staticmethod
    def problem(request: HttpRequest) -> str:
        if "\x00" in request.path:
            return gettext_noop("the address contains a NUL character.")
        if _undecodable(request.META.get("QUERY_STRING", "")):
            return gettext_noop("the query is not UTF-8.")
        if _has(request.GET, "\x00"):
            return gettext_noop("the query contains a NUL character.")
        if request.method != "POST":
            return ""
        if request.content_type not in _FORMS:
            return gettext_noop(
                "forms are sent as application/x-www-form-urlencoded or multipart/form-data."
            )
        largest = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if request.content_type == _FORMS[1] and largest is not None and _length(request) > largest:
            # before any of it is read (files are not counted)
            return gettext_noop("the form is too large.")
        params = request.content_params or {}  # Django sets them for every request
        charset = params.get("charset", "utf-8").strip().lower()
        if charset not in ("utf-8", "utf8"):
            return gettext_noop("forms must be sent in UTF-8.")
        try:
            if request.content_type == _FORMS[1]:
                # Django reads a body cut off before its closing boundary as an empty form:
                # a bare POST that means something of its own (start a game) to some views.
                boundary = params.get("boundary", "").encode()
                closing = b"--" + boundary + b"--"
                if not boundary or not request.body.rstrip(b"\r\n").endswith(closing):
                    return gettext_noop("the form could not be read.")
            if request.content_type == _FORMS[0]:
                try:
                    body = request.body.decode("utf-8")
                except UnicodeDecodeError:
                    return gettext_noop("the form is not UTF-8.")
                if _undecodable(body):
                    return gettext_noop("the form is not UTF-8.")
            if _has(request.POST, "\x00"):
                return gettext_noop("the form contains a NUL character.")
            if request.content_type == _FORMS[1]:
                if request.FILES:
                    return gettext_noop("this site takes no files.")
                if _has(request.POST, "\ufffd"):  # what Django makes of bytes that are not UTF-8
                    return gettext_noop("the form is not UTF-8.")
        except RequestDataTooBig:
            return gettext_noop("the form is too large.")
        except (BadRequest, SuspiciousOperation, MultiPartParserError, UnicodeDecodeError):
            return gettext_noop("the form could not be read.")
        return ""


class UserLanguage:
    """A signed-in player's saved language (Settings) wins over the browser's; without one,
    ``LocaleMiddleware`` has chosen from the language cookie or ``Accept-Language``."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            language = _saved_language(request, user)
            if not language:
                _note_seen_language(request, user)
            elif language != request.LANGUAGE_CODE:
                translation.activate(language)
                request.LANGUAGE_CODE = language
        return self.get_response(request)


def _saved_language(request: HttpRequest, user: User) -> str:
    """The player's saved language, read once a session (kept there until they change it)."""
    if SESSION_LANGUAGE not in request.session:
        from games.models import Profile

        saved = Profile.objects.filter(player=user).values_list("language", flat=True)
        request.session[SESSION_LANGUAGE] = saved.first() or ""
    return request.session[SESSION_LANGUAGE]


def _note_seen_language(request: HttpRequest, user: User) -> None:
    """Note the language a player without a saved one uses the site in (their browser's or
    the footer's), once a session and language: notifications and e-mails are written in it."""
    if request.session.get(SESSION_SEEN_LANGUAGE) != request.LANGUAGE_CODE:
        from games.models import Profile

        Profile.objects.filter(player=user).update(seen_language=request.LANGUAGE_CODE)
        request.session[SESSION_SEEN_LANGUAGE] = request.LANGUAGE_CODE


#: Where a player's saved language is kept in their session.
SESSION_LANGUAGE = "saved_language"
#: The language last noted as the one a player without a saved one uses the site in.
SESSION_SEEN_LANGUAGE = "seen_language"


class RecordLastSeen:
    """Note a signed-in player's visit, at most once a minute (kept in their session)."""

    INTERVAL = 60

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and response.status_code < 400:
            now = time.time()
            if now - request.session.get("seen_at", 0) > self.INTERVAL:
                from games import services

                services.touch(user)
                request.session["seen_at"] = now
        return response


class ShowHidden:
    """Whatever a view was about to show or do that would reveal a puzzle order still secret
    for the viewer (``visibility.Hidden``, raised by the services) is answered with the page
    that says why, whichever view it came from: a page, a replay, a move, a join."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if isinstance(exc, Hidden):
            context = {"reason": str(exc), "back": exc.back}
            return render(request, "games/hidden.html", context, status=403)
        return None
