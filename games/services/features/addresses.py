"""E-mail addresses, confirmed by a link sent to them: at sign-up and when a player changes
their address.

An account's own address (``User.email``) is always a confirmed one: every e-mail of the
site (moves, password resets) goes there. An address given at sign-up or in the settings
waits in ``Profile.pending_email`` until the link sent to it is followed; the link carries
a signed token (``django.core.signing``) naming the account and the address, good for
``LINK_AGE``, and for the address still waiting only. An address another account has
already is never told apart from a free one: its owner gets an e-mail saying so instead
(``games.infra.notifications.send_address_mail``).
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.core import signing
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.models import Profile

SALT = "games.addresses.confirm"
#: How long a confirmation link works.
LINK_AGE = timedelta(days=3)


class AddressRefused(ValueError):
    """A confirmation link that cannot confirm anything (the message says why)."""


def normalized(email: str) -> str:
    return email.strip().lower()


def ask(user: User, email: str) -> None:
    """``email`` waits for ``user`` to confirm it (replacing any address waiting before)."""
    email = normalized(email)
    with transaction.atomic():
        profile, _made = Profile.objects.select_for_update().get_or_create(player=user)
        profile.pending_email = "" if email == normalized(user.email) else email
        profile.save(update_fields=["pending_email"])


def pending(user: User) -> str:
    """The address waiting for ``user`` to confirm it, or ""."""
    return Profile.objects.filter(player=user).values_list("pending_email", flat=True).first() or ""


def owner(email: str, *, besides: User | None = None) -> User | None:
    """The account whose (confirmed) address ``email`` is, other than ``besides``."""
    found = User.objects.filter(email__iexact=normalized(email))
    if besides is not None:
        found = found.exclude(pk=besides.pk)
    return found.first()


def token(user: User, email: str) -> str:
    """The token of the link confirming ``email`` for ``user``."""
    return signing.dumps([user.pk, normalized(email)], salt=SALT, compress=True)


def confirm(value: str) -> tuple[User, str]:
    """Confirm the address a link's token names: it becomes its account's own address. The
    account, and the address it replaced ("" if none, or if the link was followed before).
    ``AddressRefused`` if the link is broken, too old, or for an address no longer waiting,
    or if another account confirmed that address first."""
    try:
        user_id, email = signing.loads(value, salt=SALT, max_age=LINK_AGE)
    except (signing.BadSignature, ValueError, TypeError):
        raise AddressRefused(
            _("This confirmation link is broken or too old: ask for a new one in your settings.")
        ) from None
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id, is_active=True).first()
        if user is None:
            raise AddressRefused(_("This confirmation link is for an account that is closed."))
        if normalized(user.email) == email:
            return user, ""  # followed twice
        profile = Profile.objects.select_for_update().filter(player=user).first()
        if profile is None or profile.pending_email != email:
            raise AddressRefused(
                _("This link is for an address you have replaced since: use the newest link.")
            )
        try:
            with transaction.atomic():
                User.objects.filter(pk=user.pk).update(email=email)
        except IntegrityError:
            raise AddressRefused(
                _("This address belongs to another account now: give another in your settings.")
            ) from None
        profile.pending_email = ""
        profile.save(update_fields=["pending_email"])
        replaced, user.email = user.email, email
    return user, replaced
