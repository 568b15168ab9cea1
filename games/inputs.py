"""Strict readers for what a request says: numbers, choices, ids and names.

Every number a view takes from a request goes through ``parse_int`` (forms through
``StrictIntegerField``, URLs through the ``id`` converter): ASCII digits with an optional
minus sign, a bounded length and range. ``int()`` alone would accept "٣" and refuse "²"
with an exception, although ``str.isdigit`` says yes to both.

Every text a player writes for others to read (a chat message, a report's note) goes through
``parse_text``: stripped, of a bounded length and number of lines, with no control character
(bar the line breaks it allows) and nothing that turns text around on screen.

Every choice a request may leave out or send empty goes through ``parse_choice`` (forms
through ``OptionalChoiceField``): empty means the default, which is what the code and the
page then see, never ""; anything else not among the choices is refused.
"""

import re
import unicodedata
from collections.abc import Iterable

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, ngettext

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


#: Characters that reorder the text around them on screen (bidirectional embeddings,
#: overrides and isolates): a message could show something else than it says.
_REORDERING = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def parse_text(text: object, *, max_length: int, max_lines: int, required: bool = True) -> str:
    """``text`` stripped, its line breaks made ``\\n``; ValueError with a reason if it is
    empty (when ``required``), longer than ``max_length`` characters or ``max_lines`` lines,
    or holds a control character or one that reorders text.

    >>> parse_text("  hello\\r\\nthere ", max_length=20, max_lines=2)
    'hello\\nthere'
    >>> parse_text("a\\x07", max_length=20, max_lines=1)
    Traceback (most recent call last):
        ...
    ValueError: no control characters, please
    """
    if not isinstance(text, str):
        raise ValueError(gettext("not a text"))
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        if required:
            raise ValueError(gettext("write something first"))
        return ""
    if len(text) > max_length:
        raise ValueError(
            ngettext(
                "at most %(count)s character, please",
                "at most %(count)s characters, please",
                max_length,
            )
            % {"count": max_length}
        )
    for char in text:
        if char in _REORDERING or (char != "\n" and unicodedata.category(char) in ("Cc", "Cs")):
            raise ValueError(gettext("no control characters, please"))
    if text.count("\n") >= max_lines:
        raise ValueError(
            ngettext("at most %(count)s line, please", "at most %(count)s lines, please", max_lines)
            % {"count": max_lines}
        )
    return text


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
            choices = self.choices
            assert isinstance(choices, Iterable)  # ChoiceField keeps them as (value, label)
            return parse_choice(value, choices, default=self.default)
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
