"""A player's account: signing up, logging in, passwords, the settings, confirming an e-mail
address and changing it, closing the account and downloading its data."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.forms import PasswordChangeForm, PasswordResetForm
from django.contrib.auth.views import LoginView, PasswordChangeView
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import accounts
from games.forms import CloseAccountForm, EmailChangeForm, SettingsForm, SignupForm
from games.http import AccountRequest
from games.infra import limits
from games.infra import notifications as mails
from games.infra.middleware import SESSION_LANGUAGE
from games.models import Profile
from games.services.features import addresses, blocks, closing, export, guests
from games.views import pushes
from games.views.common import posted_data


def render_settings(request: AccountRequest, *, status: int = 200, **forms) -> HttpResponse:
    """The settings page: the player's settings, their address (and the one waiting for
    confirmation), their push notifications, the players they have blocked, and the forms
    sent back with their mistakes (``forms``)."""
    profile, _made = Profile.objects.get_or_create(player=request.user)
    context = {
        "form": SettingsForm(instance=profile),
        "email_form": EmailChangeForm(request.user),
        "pending_email": profile.pending_email,
        "blocked": blocks.blocked_players(request.user),
        **pushes.settings_context(request),
        **forms,
    }
    return render(request, "games/settings.html", context, status=status)


@accounts.account_required
@require_http_methods(["GET", "POST"])
def settings_view(request: AccountRequest) -> HttpResponse:
    if request.method == "GET":
        return render_settings(request)
    profile, _made = Profile.objects.get_or_create(player=request.user)
    form = SettingsForm(request.POST, instance=profile)
    if not form.is_valid():
        return render_settings(request, form=form, status=400)
    form.save()
    request.session[SESSION_LANGUAGE] = profile.language
    response = redirect("settings")
    if profile.language:
        translation.activate(profile.language)
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, profile.language)
    messages.success(request, _("Your settings are saved."))
    return response


def send_address_mail(request: HttpRequest, user) -> None:
    """Send the e-mail about the address waiting for ``user``'s confirmation by a task; at
    once if the broker is away (the player can ask again from their settings)."""
    mails.send_soon("send_address_mail", user.pk, translation.get_language())


def link_sent(request: HttpRequest, email: str) -> None:
    """Say where the link went: the same words whether or not the address is taken."""
    messages.info(
        request,
        _("We sent a link to %(email)s: follow it to confirm the address is yours.")
        % {"email": email},
    )


def _too_many(request: HttpRequest) -> int | None:
    return limits.over_limit(request, "address-mails", "user", limits.ADDRESS_MAILS)


@sensitive_post_parameters()
@accounts.account_required
@require_POST
def change_email(request: AccountRequest) -> HttpResponse:
    """A new address for the account, which changes when the link sent there is followed."""
    form = EmailChangeForm(request.user, request.POST)
    if not form.is_valid():
        return render_settings(request, email_form=form, status=400)
    wait = _too_many(request)
    if wait:
        error = _("Too many e-mails asked for. Try again in %(wait)s minutes.") % {"wait": wait}
        return render_settings(request, email_form=form, email_error=error, status=429)
    email = form.cleaned_data["email"]
    addresses.ask(request.user, email)
    if addresses.pending(request.user):
        send_address_mail(request, request.user)
        link_sent(request, email)
    return redirect("settings")


@accounts.account_required
@require_POST
def resend_link(request: AccountRequest) -> HttpResponse:
    """The link confirming the address waiting, sent again."""
    email = addresses.pending(request.user)
    if not email:
        messages.info(request, _("No address is waiting for confirmation."))
        return redirect("settings")
    wait = _too_many(request)
    if wait:
        error = _("Too many e-mails asked for. Try again in %(wait)s minutes.") % {"wait": wait}
        return render_settings(request, email_error=error, status=429)
    send_address_mail(request, request.user)
    link_sent(request, email)
    return redirect("settings")


@require_http_methods(["GET", "POST"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link sent to an address: a button confirms it (a GET changes nothing, so that a
    mail program looking at the link first confirms nothing)."""
    if request.method == "GET":
        return render(request, "registration/confirm_email.html", {"token": token})
    try:
        user, replaced = addresses.confirm(token)
    except addresses.AddressRefused as refused:
        context = {"token": token, "error": str(refused)}
        return render(request, "registration/confirm_email.html", context, status=400)
    if replaced:
        mails.send_soon("send_address_changed", user.pk, replaced, translation.get_language())
    messages.success(
        request, _("Your e-mail address %(email)s is confirmed.") % {"email": user.email}
    )
    return redirect("settings" if request.user == user else "home")


@sensitive_post_parameters()
@accounts.account_required
@require_http_methods(["GET", "POST"])
def close_account(request: AccountRequest) -> HttpResponse:
    """Close the account, after its password."""
    form = CloseAccountForm(request.user, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        closing.close(request.user)
        logout(request)
        messages.success(request, _("Your account is closed. Thank you for playing."))
        return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "games/close_account.html", {"form": form}, status=status)


@never_cache
@accounts.account_required
@require_GET
def export_data(request: AccountRequest) -> HttpResponse:
    """Everything kept about the player, as one JSON file."""
    data = export.everything(request.user)
    response = HttpResponse(
        json.dumps(data, indent=1, ensure_ascii=False), content_type="application/json"
    )
    day = timezone.now().date().isoformat()
    response["Content-Disposition"] = f'attachment; filename="nmbr9site-{day}.json"'
    return response


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account; a guest's games become its own. Then the address the player came from
    (``next``); else the home page with their games for a guest who played, the tutorials
    for anybody new."""
    guest = accounts.is_guest(request)
    if request.user.is_authenticated and not guest:
        return redirect("home")
    form = SignupForm(posted_data(request))
    if request.method == "POST" and form.is_valid():
        # Only sign-ups that are taken count against the limit: a form sent back with its
        # mistakes costs nothing.
        wait = limits.over_limit(request, "signup", "ip", limits.SIGNUPS)
        if wait:
            error = _("Too many sign-ups from your address. Try again in %(wait)s minutes.") % {
                "wait": wait
            }
            # The name and address stay in the form, for when the hour is over.
            context = {"form": form, "error": error, "next": _next(request)}
            return render(request, "registration/signup.html", context, status=429)
        email = form.cleaned_data["email"]
        try:
            with transaction.atomic():
                user = form.save()
                addresses.ask(user, email)
        except IntegrityError:
            # Another sign-up took the name after the form's checks.
            form.add_error(None, _("That name was taken just now."))
        else:
            played = guest and guests.has_played(request.user)
            accounts.log_in(request, user)
            send_address_mail(request, user)
            link_sent(request, email)
            return redirect(_next(request) or reverse("home" if played else "learn"))
    status = 400 if form.errors else 200
    context = {"form": form, "next": _next(request)}
    return render(request, "registration/signup.html", context, status=status)


def _next(request: HttpRequest) -> str:
    """The address of this site a form was asked to lead to afterwards (``next``), or ""."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if safe else ""


@sensitive_post_parameters()
@require_http_methods(["GET", "POST"])
def log_in(request: HttpRequest) -> HttpResponseBase:
    """Django's log-in; a guest's games become the account's."""
    guest_id = request.session.get(accounts.SESSION_GUEST) if accounts.is_guest(request) else None
    response = LoginView.as_view(extra_context={"is_guest": guest_id is not None})(request)
    if request.method == "POST" and response.status_code == 302:
        accounts.adopt_session_guest(request, guest_id)
    elif request.method == "POST" and limits.login_wait(request):
        return limits.locked_out(request)  # locked before, or by this failure
    return response


@sensitive_post_parameters()
@accounts.account_required
@require_http_methods(["GET", "POST"])
def password_change(request: AccountRequest) -> HttpResponseBase:
    """Django's change of password, with its attempts limited per player: a session left open
    somewhere must not be a way to guess the password."""
    if request.method == "POST":
        wait = limits.over_limit(request, "password-change", "user", limits.PASSWORD_CHANGES)
        if wait:
            error = _("Too many attempts to change your password. Try again in %(wait)s minutes.")
            context = {"form": PasswordChangeForm(request.user), "error": error % {"wait": wait}}
            return render(request, "registration/password_change_form.html", context, status=429)
    return PasswordChangeView.as_view()(request)


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """Ask for a password-reset link. The e-mail is sent by a task, so the answer takes as
    long whether or not the address belongs to an account."""
    form = PasswordResetForm(posted_data(request))
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"].strip().lower()
        wait = limits.over_limit(
            request, "reset-client", "ip", limits.RESETS_PER_CLIENT
        ) or limits.over_limit(
            request, "reset-address", lambda group, request: email, limits.RESETS_PER_ADDRESS
        )
        if wait:
            error = _("Too many reset e-mails asked for. Try again in %(wait)s minutes.") % {
                "wait": wait
            }
            context = {"form": form, "error": error}
            return render(request, "registration/password_reset_form.html", context, status=429)
        mails.send_soon("send_password_reset", email, translation.get_language())
        return redirect("password_reset_done")
    status = 400 if form.errors else 200
    return render(request, "registration/password_reset_form.html", {"form": form}, status=status)
