"""nmbrs!' forms: the options of a new match, the one reader of a posted move
(``read_move``) and of what a page's address asks for (``read_query``)."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.forms import SideLabels
from games.inputs import StrictIntegerField
from games.web.base import first_error

#: How a card is named in a query: a number 1-100 or a joker.
_CARD = re.compile(r"(?:[1-9][0-9]?|100|J[RGBO])", re.ASCII)
_SORTS = ("number", "colour")


class OptionsForm(SideLabels, forms.Form):
    """The options of a new nmbrs! match."""

    #: The fields that matter only with more than one player: nmbrs! has no solo game.
    multiplayer_fields = ()

    advanced = forms.BooleanField(
        label=gettext_lazy("Advanced series: every series counts back to 0 or 1"),
        required=False,
    )
    simplified = forms.BooleanField(
        label=gettext_lazy("Simplified version: cards 1-50, smaller hands, no discard"),
        required=False,
    )


class MoveForm(forms.Form):
    """A move as a form posts it: its text in the move notation, and the page's ply."""

    move = forms.CharField(max_length=200)
    ply = StrictIntegerField(min_value=0)


def read_move(post: QueryDict) -> tuple[str, int]:
    """The move a form posts (its text) and the ply its page knew; ValueError with a
    message for the player if it cannot be read."""
    form = MoveForm(post)
    if not form.is_valid():
        raise ValueError(first_error(form))
    return form.cleaned_data["move"].strip(), form.cleaned_data["ply"]


def read_query(query: QueryDict) -> dict[str, Any]:
    """The cards selected (``pick``), a play written out (``attempt``) and the order of the
    hand (``sort``); ValueError with a message if they cannot be read."""
    read: dict[str, Any] = {}
    sort = query.get("sort", "number")
    if sort not in _SORTS:
        raise ValueError(_("sort: by number or by colour."))
    if sort != "number":
        read["sort"] = sort
    picked = [card.upper() for card in query.getlist("pick") if card]
    if len(picked) > 30 or not all(_CARD.fullmatch(card) for card in picked):
        raise ValueError(_("pick: not a card."))
    attempt = query.get("attempt", "").strip()
    if len(attempt) > 200:
        raise ValueError(_("The play is too long to be one."))
    if "pick" in query or attempt:
        read.update(preview=True, pick=tuple(dict.fromkeys(picked)), attempt=attempt)
    return read
