"""Push notifications in Settings: the player's devices (added by the page's script, which
posts the browser's subscription; removed by their buttons) and the kinds they get."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import accounts
from games.forms import PushKindsForm
from games.http import AccountRequest
from games.models import Profile, PushSubscription
from games.services.features import push_devices

#: A browser's name, and the words in its user agent that tell it, in the order tried (Edge,
#: Opera and Samsung's browser name Chrome too, and Chrome names Safari).
BROWSERS = (
    ("Edge", ("Edg/", "EdgA/", "EdgiOS/")),
    ("Opera", ("OPR/", "Opera")),
    ("Samsung Internet", ("SamsungBrowser/",)),
    ("Firefox", ("Firefox/", "FxiOS/")),
    ("Chromium", ("Chromium/",)),
    ("Chrome", ("Chrome/", "CriOS/")),
    ("Safari", ("Safari/",)),
)
#: A system's name, and the words that tell it (Android says Linux, and iOS Mac OS X).
SYSTEMS = (
    ("Android", ("Android",)),
    ("iOS", ("iPhone", "iPad", "iPod")),
    ("ChromeOS", ("CrOS",)),
    ("Windows", ("Windows",)),
    ("macOS", ("Macintosh", "Mac OS X")),
    ("Linux", ("Linux", "X11")),
)


def device_name(user_agent: str) -> str:
    """A name a player knows their device by, read from its browser's user agent: "Chrome on
    Android", in the page's language."""

    def first(names) -> str:
        return next((name for name, words in names if any(w in user_agent for w in words)), "")

    browser, system = first(BROWSERS), first(SYSTEMS)
    if browser and system:
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system or _("An unknown browser")


def settings_context(request: AccountRequest) -> dict:
    """What the push section of Settings shows: whether the site sends pushes, the player's
    devices, the kinds they get, and the key a browser subscribes with."""
    if not push_devices.enabled():
        return {"push_enabled": False}
    profile, _made = Profile.objects.get_or_create(player=request.user)
    return {
        "push_enabled": True,
        "push_key": settings.VAPID_PUBLIC_KEY,
        "push_form": PushKindsForm(instance=profile),
        **_devices(request),
    }


def _devices(request: AccountRequest) -> dict:
    devices = PushSubscription.objects.filter(player=request.user).order_by("created", "pk")
    return {
        "devices": [
            {"id": d.pk, "name": device_name(d.user_agent), "added": d.created} for d in devices
        ]
    }


@accounts.account_required
@require_POST
def add_device(request: AccountRequest) -> HttpResponse:
    """The browser's subscription (``subscription``: its JSON), posted by the page's script:
    the list of devices is the answer (400 with a message, having added nothing, if the
    subscription is refused)."""
    error, status = "", 200
    try:
        if not push_devices.enabled():
            raise push_devices.DeviceRefused(_("Push notifications are off on this server."))
        push_devices.subscribe(
            request.user,
            request.POST.get("subscription", ""),
            request.headers.get("User-Agent", ""),
        )
    except push_devices.DeviceRefused as refused:
        error, status = str(refused), 400
    context = {"push_error": error, "push_added": not error, **_devices(request)}
    return render(request, "games/settings.html#push-devices", context, status=status)


@accounts.account_required
@require_POST
def remove_device(request: AccountRequest, device_id: int) -> HttpResponse:
    if not push_devices.remove(request.user, device_id):
        raise Http404("No device of yours has this number.")
    messages.success(request, _("The device gets no more push notifications."))
    return redirect("settings")


@accounts.account_required
@require_POST
def push_kinds(request: AccountRequest) -> HttpResponse:
    """Which kinds of push notification the player's devices get."""
    profile, _made = Profile.objects.get_or_create(player=request.user)
    form = PushKindsForm(request.POST, instance=profile)
    if form.is_valid():  # check boxes: always
        form.save()
        messages.success(request, _("Your settings are saved."))
    # Back where the switches are (on a phone the page's top is far above them).
    return redirect(reverse("settings") + "#push")
