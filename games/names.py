"""Players' names as shown. A closed account keeps a name of its own (``closed-N``, N its
number) for the games it leaves behind; it is shown as "closed account N" in the reader's
language."""

from django.utils.functional import lazy
from django.utils.translation import gettext as _

CLOSED_PREFIX = "closed-"


def is_closed_name(name: str) -> bool:
    """Names beginning with ``CLOSED_PREFIX`` are closed accounts': no account may take one."""
    return name.lower().startswith(CLOSED_PREFIX)


def closed_name(player_id: int) -> str:
    return f"{CLOSED_PREFIX}{player_id}"


def shown(name: str) -> str:
    """``name`` as shown, in the active language."""
    number = name[len(CLOSED_PREFIX) :] if is_closed_name(name) else ""
    if number.isdigit():
        return _("closed account %(number)s") % {"number": number}
    return name


#: ``shown``, said when written (a notification is written in its reader's language).
shown_lazy = lazy(shown, str)
