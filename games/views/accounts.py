"""The pages of a player's own account: confirming an e-mail address, changing it, closing
the account, downloading its data, and the privacy page that says what is kept."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import accounts, limits
from games import notifications as mails
from games.forms import CloseAccountForm, EmailChangeForm, SettingsForm
from games.middleware import SESSION_LANGUAGE
from games.models import Profile
from games.services import addresses, closing, export


def render_settings(request: HttpRequest, *, status: int = 200, **forms) -> HttpResponse:
    """The settings page: the player's settings, their address (and the one waiting for
    confirmation), and the forms sent back with their mistakes (``forms``)."""
    profile, _made = Profile.objects.get_or_create(player=request.user)
    context = {
        "form": SettingsForm(instance=profile),
        "email_form": EmailChangeForm(request.user),
        "pending_email": profile.pending_email,
        **forms,
    }
    return render(request, "games/settings.html", context, status=status)


@accounts.account_required
@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
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
def change_email(request: HttpRequest) -> HttpResponse:
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
def resend_link(request: HttpRequest) -> HttpResponse:
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
def close_account(request: HttpRequest) -> HttpResponse:
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
def export_data(request: HttpRequest) -> HttpResponse:
    """Everything kept about the player, as one JSON file."""
    data = export.everything(request.user)
    response = HttpResponse(
        json.dumps(data, indent=1, ensure_ascii=False), content_type="application/json"
    )
    day = timezone.now().date().isoformat()
    response["Content-Disposition"] = f'attachment; filename="nmbr9site-{day}.json"'
    return response


@require_GET
def privacy(request: HttpRequest) -> HttpResponse:
    """What is stored, why and for how long, and the cookies the site sets (each needed)."""
    cookies = {
        "session": settings.SESSION_COOKIE_NAME,
        "csrf": settings.CSRF_COOKIE_NAME,
        "language": settings.LANGUAGE_COOKIE_NAME,
    }
    return render(request, "games/privacy.html", {"cookies": cookies})
