"""Strict readers for what a request says: numbers, ids and names.

Every number a view takes from a request goes through ``parse_int`` (forms through
``StrictIntegerField``, URLs through the ``id`` converter): ASCII digits with an optional
minus sign, a bounded length and range. ``int()`` alone would accept "٣" and refuse "²"
with an exception, although ``str.isdigit`` says yes to both.
"""

import re

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

_INTEGER = re.compile(r"-?[0-9]{1,18}", re.ASCII)
#: Database ids: positive, and small enough for a 64-bit column.
MAX_ID = 2**63 - 1


def parse_int(text: object, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``text`` as a whole number within the bounds; ValueError with a reason otherwise.

    >>> parse_int("-12")
    -12
    >>> parse_int("²")
    Traceback (most recent call last):
        ...
    ValueError: not a whole number
    """
    if not isinstance(text, str) or not _INTEGER.fullmatch(text.strip()):
        raise ValueError(gettext("not a whole number"))
    value = int(text.strip())
    if minimum is not None and value < minimum:
        raise ValueError(gettext("must be at least %(minimum)s") % {"minimum": minimum})
    if maximum is not None and value > maximum:
        raise ValueError(gettext("must be at most %(maximum)s") % {"maximum": maximum})
    return value


class StrictIntegerField(forms.IntegerField):
    """An IntegerField that reads only what ``parse_int`` accepts."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return parse_int(str(value))
        except ValueError:
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None


class IdConverter:
    """URL part for a database id: 1-18 ASCII digits (anything else is a 404)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(int(value))


class UsernameConverter:
    """URL part for a username: the characters Django allows in one, at most 150."""

    regex = r"[\w.@+-]{1,150}"

    def to_python(self, value: str) -> str:
        if "\x00" in value:
            raise ValueError("NUL in a username")
        return value

    def to_url(self, value: str) -> str:
        return value
