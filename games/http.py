"""The site's requests as its views see them, for the type checker: Django's ``HttpRequest``
with what the site's middleware adds to it. Django makes every request; these classes only
name what a request carries by the time a view or a context processor reads it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class SiteRequest(HttpRequest):
    """Any request of the site."""

    #: What htmx's headers say (``django_htmx.middleware.HtmxMiddleware``).
    htmx: HtmxDetails
    #: The matches waiting for the viewer's move, once read for this request
    #: (``games.context_processors.owed_matches``).
    owed_matches: list[int]


class AccountRequest(SiteRequest):
    """A request of a signed-in account: what a view behind ``login_required`` or
    ``accounts.account_required`` gets."""

    user: User
