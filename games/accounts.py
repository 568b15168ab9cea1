"""Who is playing: an account, or a guest made on a visitor's first game and kept in their
session (``games.services.features.guests``), whose games become the account's when they sign up
or log in."""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlencode, urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from games.infra import limits
from games.services.features import guests

#: The session's note of the guest it holds (the user's id).
SESSION_GUEST = "guest"
BACKEND = "games.infra.backends.Accounts"


def is_guest(request: HttpRequest) -> bool:
    """Whether the request comes from a guest (no query: the session says so)."""
    user = request.user
    return user.is_authenticated and request.session.get(SESSION_GUEST) == user.pk


def playing(request: HttpRequest):
    """The player who starts a game now: the signed-in player, their guest, or a new guest
    for a visitor. A guest's games count against their address's limit; the player and the
    minutes to wait (player None) when it is reached."""
    if request.user.is_authenticated and not is_guest(request):
        return request.user, None
    wait = limits.over_limit(request, "guest-games", "ip", limits.NEW_GAMES)
    if wait:
        return None, wait
    if not request.user.is_authenticated:
        guest = guests.create()
        login(request, guest, backend=BACKEND)
        request.session[SESSION_GUEST] = guest.pk
        request.session.set_expiry(guests.IDLE)
    return request.user, None


def too_many_guest_games(wait: int) -> str:
    return _("Too many games were started from your address. Try again in %(wait)s minutes.") % {
        "wait": wait
    }


def log_in(request: HttpRequest, user) -> None:
    """Sign ``user`` in; the guest the session held, if any, becomes theirs."""
    guest_id = request.session.get(SESSION_GUEST) if request.user.is_authenticated else None
    login(request, user, backend=BACKEND)
    if guest_id is not None and guest_id != user.pk:
        guests.adopt(guest_id, user)


def adopt_session_guest(request: HttpRequest, guest_id: int | None) -> None:
    """After a log-in made by Django's own view: the guest the session held before it (its
    id, read before the log-in replaced the session) becomes the new account's."""
    if guest_id is not None and request.user.is_authenticated and request.user.pk != guest_id:
        guests.adopt(guest_id, request.user)


def account_required(view):
    """A view for accounts only: a visitor is sent to log in, a guest to sign up (keeping
    their games), with the address to come back to."""

    @wraps(view)
    def checked(request: HttpRequest, *args, **kwargs):
        if not request.user.is_authenticated:
            messages.info(request, _("Log in or create an account to play with other players."))
            return redirect_to_login(_back(request))
        if is_guest(request):
            messages.info(
                request,
                _("Create an account to play with other players: your games come with you."),
            )
            return redirect(f"{reverse('signup')}?{urlencode({'next': _back(request)})}")
        return view(request, *args, **kwargs)

    return checked


def _back(request: HttpRequest) -> str:
    """Where to come back to once signed in: the page asked for, or, for a form sent (a
    POST, which cannot be asked for again by an address), the page of this site it was sent
    from."""
    if request.method == "GET":
        return request.get_full_path()
    sent_from = request.META.get("HTTP_REFERER", "")
    if url_has_allowed_host_and_scheme(
        sent_from, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        parts = urlsplit(sent_from)
        return parts.path + (f"?{parts.query}" if parts.query else "")
    return reverse("home")
