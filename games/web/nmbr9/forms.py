"""NMBR 9's forms: the options of a new game, and the one reader of what a match page sends
about a turn (a preview's query or a posted move), ``read_turn``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.contract import InvalidMove
from games.forms import ConditionalRadioSelect, SideLabels, enabled_when
from games.inputs import OptionalChoiceField, StrictIntegerField, parse_int
from games.nmbr9 import Placement, Turn
from games.nmbr9.setup import MAX_VARIANT_PLAYERS
from games.nmbr9.turn import TILE_SPECIALS
from games.web.base import first_error, sentence
from games.web.nmbr9.compose import Compose, step_for
from games.web.nmbr9.words import SPECIAL_NAMES, reason_text

#: Coordinates a ghost may be moved to.
REACH = 99

#: The player counts the variants allow, as a form posts them.
VARIANT_PLAYERS = [str(n) for n in range(1, MAX_VARIANT_PLAYERS + 1)]


class OptionsForm(SideLabels, forms.Form):
    """The NMBR 9 options of a new game: the pace, cards removed, and NMBR 9 ++. Controls
    the rules refuse with the other choices made are disabled by the page's script (the
    variants beyond 4 players, "level to level" in free pace, cards removed in a variant,
    special tiles unless chosen); ``clean`` refuses them all the same."""

    #: The fields that matter only with more than one player (hidden for a solo game).
    multiplayer_fields = ("pace",)

    pace = OptionalChoiceField(
        label=gettext_lazy("Pace"),
        choices=[
            (
                "rounds",
                gettext_lazy("Rounds: everybody places each card, then the next is revealed"),
            ),
            ("free", gettext_lazy("Free: everybody goes through the cards at their own speed")),
        ],
        default="rounds",
        widget=forms.RadioSelect,
    )
    #: Empty, or not posted while a variant is chosen: none.
    removed = OptionalChoiceField(
        label=gettext_lazy("Cards removed before the game"),
        choices=[
            ("0", gettext_lazy("0 (none)")),
            ("1", "1"),
            ("2", "2"),
            ("3", "3"),
            ("4", "4"),
            ("random", gettext_lazy("A random number (0-4)")),
        ],
        default="0",
        widget=forms.Select(attrs=enabled_when(variant=["base"])),
    )
    start_tiles = forms.BooleanField(
        label=gettext_lazy("NMBR 9 ++: new start tiles (each player starts with a different one)"),
        required=False,
    )
    fillers = forms.BooleanField(
        label=gettext_lazy("NMBR 9 ++: gap fillers (one F1 and one F2 each)"), required=False
    )
    breaking = OptionalChoiceField(
        label=gettext_lazy("NMBR 9 ++: breaking rules (special tiles)"),
        choices=[
            ("", gettext_lazy("Not played")),
            ("random2", gettext_lazy("2 special tiles drawn at random")),
            ("chosen", gettext_lazy("The special tiles chosen below")),
        ],
        default="",
    )
    specials = forms.MultipleChoiceField(
        label=gettext_lazy("Special tiles in play"),
        choices=list(SPECIAL_NAMES.items()),
        required=False,
        widget=forms.CheckboxSelectMultiple(attrs=enabled_when(breaking=["chosen"])),
    )
    variant = OptionalChoiceField(
        label=gettext_lazy("Variant (1-4 players)"),
        choices=[
            ("base", gettext_lazy("None: every card is built")),
            ("two_of_three", gettext_lazy("2 of 3: of every three cards one is rejected")),
            (
                "level_to_level",
                gettext_lazy("Level to level: cards under level markers (rounds pace)"),
            ),
        ],
        default="base",
        widget=ConditionalRadioSelect(
            {
                "two_of_three": {"players": VARIANT_PLAYERS},
                "level_to_level": {"players": VARIANT_PLAYERS, "pace": ["rounds"]},
            }
        ),
    )

    def clean_removed(self) -> int | str:
        value = self.cleaned_data["removed"]
        return value if value == "random" else int(value)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        breaking = data.pop("breaking", "")
        chosen = data.pop("specials", [])
        if breaking == "chosen":
            if not chosen:
                raise forms.ValidationError(_("Choose at least one special tile."))
            data["specials"] = list(chosen)
        elif breaking == "random2":
            data["specials"] = "random2"
        for name in ("start_tiles", "fillers"):
            if not data.get(name):
                data.pop(name, None)
        if data.get("variant") == "base":
            data.pop("variant")
        return data


class PlacementForm(forms.Form):
    """Where to put the piece being placed: the top-left of its bounding box and a rotation."""

    x = StrictIntegerField(min_value=-REACH, max_value=REACH)
    y = StrictIntegerField(min_value=-REACH, max_value=REACH)
    rotation = StrictIntegerField(min_value=0, max_value=3)


#: The spot's fields, which a preview may leave out (then its piece is shown where it fits).
SPOT = ("x", "y", "rotation")
#: What a page posts with a move besides the turn composed: the card's tile, the page's ply,
#: or a whole turn that places nothing.
MOVE_FIELDS = ("number", "ply", "turn")
#: The turn composed so far, by the name a page's address or form gives each part.
COMPOSE_FIELDS = {
    "steps": "steps",
    "piece": "piece",
    "specials": "with",
    "marker": "from",
    "src": "src",
}


class TurnForm(PlacementForm):
    """What a match page sends about a turn, as one form: the turn composed so far (NMBR 9
    ++), the spot of the piece placed now and, with a move (``preview=False``), the card's
    tile ``number`` (by default the piece placed), the number of moves the page knew of, or
    instead a whole ``turn`` that places nothing ("reject", "reserve").

    ``piece``: "card" (the card's tile), "F1"/"F2" (a gap filler), "build" (the reserved
    tile), "move" (the tile at ``src`` moved with the special tile "move"), "none" (nothing
    more: confirm the steps); ``with``: the special tiles used on the card's tile; ``from``:
    the level marker of the card taken. A move's own fields are read first, a preview's
    composition first: each says what is wrong with it first."""

    number = StrictIntegerField(required=False, min_value=0, max_value=9)
    ply = StrictIntegerField(min_value=0, max_value=100_000)
    turn = OptionalChoiceField(
        default="",
        choices=[
            (t, t) for t in ("", "reject", "reserve", *(f"reserve from {m}" for m in range(5)))
        ],
    )
    steps = forms.CharField(required=False, max_length=400)
    piece = OptionalChoiceField(
        default="",
        choices=[(p, p) for p in ("", "none", "card", "F1", "F2", "build", "move")],
    )
    specials = forms.CharField(required=False, max_length=60)
    marker = StrictIntegerField(required=False, min_value=0, max_value=4)
    src = forms.CharField(required=False, max_length=30)

    def __init__(self, data=None, *, preview: bool = False, **kwargs):
        whole_turn = data is not None and not preview and bool(data.get("turn"))
        if data is not None:
            read = {name: data.get(name) for name in (*SPOT, *MOVE_FIELDS) if name in data}
            if not whole_turn:  # a whole turn is all there is to read
                read |= {
                    key: data.get(name)
                    for key, name in COMPOSE_FIELDS.items()
                    if data.get(name) not in (None, "")
                }
            data = read
        super().__init__(data, **kwargs)
        if preview:
            for name in MOVE_FIELDS:
                del self.fields[name]
            self.order_fields([*COMPOSE_FIELDS, *SPOT])
        if whole_turn:
            for name in COMPOSE_FIELDS:
                del self.fields[name]
        # A preview may leave the spot out; a move places nothing with a whole turn or none.
        if data is not None and (
            (preview and not set(SPOT) & set(data))
            or (not preview and (whole_turn or data.get("piece") == "none"))
        ):
            for name in SPOT:
                self.fields[name].required = False

    def clean_steps(self) -> Turn | None:
        text = self.cleaned_data["steps"].strip()
        if not text:
            return None
        try:
            return Turn.parse(text)
        except InvalidMove as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_turn(self) -> Turn | None:
        text = self.cleaned_data["turn"]
        return Turn.parse(text) if text else None

    def clean_specials(self) -> tuple[str, ...]:
        names = [n for n in self.cleaned_data["specials"].split(",") if n]
        if any(n not in TILE_SPECIALS for n in names) or len(set(names)) != len(names):
            raise forms.ValidationError(_("not a list of special tiles."))
        return tuple(n for n in TILE_SPECIALS if n in names)

    def clean_src(self) -> Placement | None:
        text = self.cleaned_data["src"]
        if not text:
            return None
        try:
            return Placement.parse(text)
        except InvalidMove as exc:
            raise forms.ValidationError(str(exc)) from None

    def posted(self) -> Posted:
        data = self.cleaned_data
        compose = Compose(
            data.get("steps"),
            data.get("piece", ""),
            data.get("specials", ()),
            data.get("marker"),
            data.get("src"),
        )
        at = None if data["x"] is None else (data["x"], data["y"], data["rotation"])
        return Posted(compose, at, data.get("number"), data.get("ply"), data.get("turn"))


@dataclass(frozen=True, slots=True)
class Posted:
    """What a match page sent about a turn: the turn composed so far, the spot of the piece
    placed now (None: not said), and with a move the card's tile, the ply the page knew and
    a whole turn that places nothing (None: the turn is composed)."""

    compose: Compose = Compose()
    at: tuple[int, int, int] | None = None
    number: int | None = None
    ply: int | None = None
    turn: Turn | None = None

    def move(self) -> Turn:
        """The turn to play: ValueError with a message for the player if there is none."""
        if self.turn is not None:
            return self.turn
        step = None
        if self.compose.piece != "none":
            assert self.at is not None  # a move's form wants the spot unless it places nothing
            try:
                step = step_for(self.compose, self.number, self.at)
            except InvalidMove as exc:  # a step the notation has not: the rules' refusal
                raise ValueError(sentence(reason_text(exc))) from None
        turn = self.compose.turn(step)
        if turn is None:
            raise ValueError(_("Choose what to play."))
        return turn


#: The fields of a plain placement (the card's tile, nothing composed) and their bounds: what
#: nearly every preview and move sends, read without the form's work (a form costs 0.1-0.2 ms
#: of CPU, this 0.01). Anything else, or anything out of bounds, goes through the form,
#: which gives the messages; both read a plain placement the same.
PLAIN_PREVIEW = {"x": (-REACH, REACH), "y": (-REACH, REACH), "rotation": (0, 3)}
PLAIN_MOVE = {**PLAIN_PREVIEW, "number": (0, 9), "ply": (0, 100_000)}
#: What else a plain move's form may post (empty fields of a form count as absent).
PLAIN_EXTRA = frozenset({"csrfmiddlewaretoken"})


def _plain(data: QueryDict, fields: dict[str, tuple[int, int]]) -> dict[str, int] | None:
    """``data`` read as a plain placement with ``fields``, or None if it is not one."""
    for key, values in data.lists():
        if key not in fields and key not in PLAIN_EXTRA and any(values):
            return None
    read = {}
    for name, (minimum, maximum) in fields.items():
        try:
            read[name] = parse_int(data[name], minimum=minimum, maximum=maximum)
        except (KeyError, ValueError):
            return None
    return read


def read_turn(data: QueryDict, *, preview: bool = False) -> Posted:
    """What a match page sends about a turn: a preview's query (``preview``) or a posted
    move; ValueError with a message for the player if it cannot be read."""
    plain = _plain(data, PLAIN_PREVIEW if preview else PLAIN_MOVE)
    if plain is not None:
        at = (plain["x"], plain["y"], plain["rotation"])
        return Posted(Compose(), at, plain.get("number"), plain.get("ply"))
    form = TurnForm(data, preview=preview)
    if not form.is_valid():
        raise ValueError(first_error(form))
    return form.posted()
