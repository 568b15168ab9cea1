"""Strict readers for what a request says: numbers, choices, ids and names.

Every number a view takes from a request goes through ``parse_int`` (forms through
``StrictIntegerField``, URLs through the ``id`` converter): ASCII digits with an optional
minus sign, a bounded length and range. ``int()`` alone would accept "٣" and refuse "²"
with an exception, although ``str.isdigit`` says yes to both.

Every choice a request may leave out or send empty goes through ``parse_choice`` (forms
through ``OptionalChoiceField``): empty means the default, which is what the code and the
page then see, never ""; anything else not among the choices is refused.
"""

import re
from collections.abc import Iterable

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


def parse_choice(text: object, choices: Iterable, *, default: str) -> str:
    """``text`` if it is one of ``choices`` (values, or (value, label) pairs), ``default``
    if it is empty or missing; ValueError otherwise.

    >>> parse_choice("", ["a", "b"], default="a")
    'a'
    >>> parse_choice("c", ["a", "b"], default="a")
    Traceback (most recent call last):
        ...
    ValueError: not one of the choices
    """
    if text is None or text == "":
        return default
    values = {choice[0] if isinstance(choice, tuple) else choice for choice in choices}
    if not isinstance(text, str) or text not in values:
        raise ValueError(gettext("not one of the choices"))
    return text


class OptionalChoiceField(forms.ChoiceField):
    """A choice that may be left out or sent empty, meaning ``default``: the form's cleaned
    data and the value its page shows (``form[name].value``) are then ``default``, never "".
    A value not among the choices is refused as ChoiceField refuses it."""

    def __init__(self, *, default: str, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("initial", default)
        super().__init__(**kwargs)
        self.default = default

    def to_python(self, value) -> str:
        try:
            return parse_choice(value, self.choices, default=self.default)
        except ValueError:
            raise ValidationError(
                self.error_messages["invalid_choice"],
                code="invalid_choice",
                params={"value": value},
            ) from None

    def bound_data(self, data, initial):
        data = super().bound_data(data, initial)
        return self.default if data in self.empty_values else data


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
