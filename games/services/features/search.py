"""Finding a player by the beginning of their name (for invitations and follows).

Reads only. Listed are active accounts, bots among them (they can be invited), never
guests (who play alone, against bots or by an invitation link) nor closed accounts.
"""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Lower
from django.utils.translation import gettext as _

from games.names import CLOSED_PREFIX
from games.services.features.guests import PREFIX as GUEST_PREFIX

#: Players listed for one prefix.
FOUND = 10
#: The characters of a name (Django's usernames).
NAME_PREFIX = re.compile(r"[\w.@+-]{1,150}")


def players(prefix: str, reader=None) -> list[User]:
    """The first ``FOUND`` players, by name, whose name begins with ``prefix`` whatever the
    capitals (the reader left out), each with its ``bot`` strength ("" for a person); none
    for an empty prefix. ValueError with the reason for
    a prefix no name could begin with."""
    prefix = prefix.strip()
    if not prefix:
        return []
    if not NAME_PREFIX.fullmatch(prefix):
        raise ValueError(_("Names have only letters, digits and the signs @ . + - _"))
    found = (
        # LOWER(username) LIKE 'prefix%': the index players_by_lower_name (PostgreSQL)
        User.objects.alias(lower=Lower("username"))
        .filter(is_active=True, lower__startswith=prefix.lower())
        .exclude(profile__guest=True)
        .exclude(username__istartswith=GUEST_PREFIX)
        .exclude(username__istartswith=CLOSED_PREFIX)
        .annotate(bot=Coalesce(F("profile__bot"), Value("")))
        .order_by(Lower("username"), "pk")
    )
    if reader is not None and reader.is_authenticated:
        found = found.exclude(pk=reader.pk)
    return list(found[:FOUND])
