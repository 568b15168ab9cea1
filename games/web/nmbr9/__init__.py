"""NMBR 9 on the site: how its view becomes a page, how a page's forms become its moves.

The game page shows the player's own display, drawn on the server as SVG, with the tile to
place as a *ghost* that the player moves (previews are GET requests with ``x``, ``y`` and
``rotation``, answered with the ``turn`` partial only) and confirms (a POST of the move
``place N@X,YrR`` with the ply the page knew). Everything here comes from the player's view
(``GameView``): their own display, the others as far as they may see them, the supply.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import QueryDict
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from games.contract import InvalidMove
from games.forms import ConditionalRadioSelect, SideLabels, enabled_when
from games.inputs import OptionalChoiceField, StrictIntegerField, parse_int
from games.models import Seat
from games.names import shown
from games.nmbr9 import Board, IllegalPlacement, Place, Placement, Turn
from games.nmbr9.board import WINDOW
from games.nmbr9.policy import choose
from games.nmbr9.setup import MAX_VARIANT_PLAYERS
from games.nmbr9.tiles import FILLERS
from games.nmbr9.turn import TILE_SPECIALS, Build, Fill, Move, Reject, Reserve
from games.nmbr9.views import Logged
from games.services import MatchView, draft, history, solo_line
from games.web.base import LogEntry, first_error, left_text, sentence
from games.web.base import reason_text as base_reason_text
from games.web.charts import score_chart
from games.web.nmbr9.svg import board_svg, legend, points_by_level

#: Coordinates a ghost may be moved to.
REACH = 99


#: The special tiles' names on the page (the move notation keeps the English names).
SPECIAL_LABELS = {
    "move": pgettext_lazy("special tile", "move"),
    "black": pgettext_lazy("special tile", "black side"),
    "one": pgettext_lazy("special tile", "one"),
    "bridge": pgettext_lazy("special tile", "bridge"),
    "loose": pgettext_lazy("special tile", "loose"),
    "reserve": pgettext_lazy("special tile", "reserve"),
}

#: What each special tile does, for the options form and the help page.
SPECIAL_NAMES = {
    "move": gettext_lazy("move: move a tile already built"),
    "black": gettext_lazy("black side: build the tile mirrored (scores 0)"),
    "one": gettext_lazy("one: the tile may rest on a single tile"),
    "bridge": gettext_lazy("bridge: the tile may span a closed gap"),
    "loose": gettext_lazy("loose: the tile need not touch its level"),
    "reserve": gettext_lazy("reserve: set the card's tile aside for later"),
}


def special_label(name: str) -> str:
    """A special tile's name in the page's language."""
    label = SPECIAL_LABELS.get(name)
    return name if label is None else str(label)


#: What a step of a turn says in the match log and the replay, by its kind.
STEP_SENTENCES = {
    "place": gettext_lazy("%(player)s placed the %(number)s on level %(level)s."),
    "place with": gettext_lazy(
        "%(player)s placed the %(number)s on level %(level)s using %(specials)s."
    ),
    "place mirrored": gettext_lazy(
        "%(player)s placed the mirrored %(number)s on level %(level)s using %(specials)s."
    ),
    "fill": gettext_lazy("%(player)s laid gap filler %(filler)s on level %(level)s."),
    "move": gettext_lazy("%(player)s moved the %(number)s to level %(level)s."),
    "build": gettext_lazy("%(player)s built the reserved %(number)s on level %(level)s."),
    "reserve": gettext_lazy("%(player)s reserved the %(number)s."),
    "reserve unknown": gettext_lazy("%(player)s reserved a tile."),
    "reject": gettext_lazy("%(player)s rejected the %(number)s."),
    "forced reject": gettext_lazy(
        "%(player)s had to reject the %(number)s (one card of three is rejected)."
    ),
    "skip": gettext_lazy("%(player)s could build none of the cards shown and skipped the round."),
    "quoted": pgettext_lazy("a special tile's name in a sentence", '"%(name)s"'),
}


@dataclass(frozen=True, slots=True)
class Said:
    """A step of a turn in words, with its move notation (not translated; "" for a step
    the rules took by themselves)."""

    text: str
    notation: str


class _Sentences(dict):
    """``STEP_SENTENCES`` in the page's language, each looked up when first asked for."""

    def __missing__(self, kind: str) -> str:
        text = self[kind] = str(STEP_SENTENCES[kind])
        return text


class StepWords:
    """Writes the steps of a player's turns in words, for the match log and the replay: one
    sentence per step (``Logged``), in the page's language, each looked up once."""

    def __init__(self) -> None:
        self.sentences = _Sentences()

    def __call__(self, player: str, logged: Logged) -> list[Said]:
        """The steps of ``logged``, a turn of ``player``'s, in words."""
        sentences = self.sentences
        turn = logged.turn
        if turn is None:
            return [Said(sentences["skip"] % {"player": player}, "")]
        if logged.forced:
            forced = sentences["forced reject"] % {"player": player, "number": logged.card}
            return [Said(forced, "")]
        steps = turn.steps
        first = steps[0]
        if len(steps) == 1 and type(first) is Place and not first.specials:  # the base game's
            plain = {"player": player, "number": first.placement.number, "level": logged.levels[0]}
            return [Said(sentences["place"] % plain, str(first))]
        levels = iter(logged.levels)
        said = []
        for step in steps:
            words: dict[str, Any] = {"player": player}
            if isinstance(step, Place):
                kind = "place"
                if step.specials:
                    kind = "place mirrored" if step.placement.mirrored else "place with"
                    words["specials"] = ", ".join(
                        sentences["quoted"] % {"name": special_label(name)}
                        for name in step.specials
                    )
                words.update(number=step.placement.number, level=next(levels))
            elif isinstance(step, Fill):
                kind = "fill"
                words.update(filler=step.placement.piece, level=next(levels))
            elif isinstance(step, Move):
                kind = "move"
                words.update(number=step.source.number, level=next(levels))
            elif isinstance(step, Build):
                kind = "build"
                words.update(number=step.placement.number, level=next(levels))
            elif isinstance(step, Reserve):
                kind = "reserve" if logged.card is not None else "reserve unknown"
                words["number"] = logged.card
            else:
                assert isinstance(step, Reject)
                kind = "reject"
                words["number"] = logged.card
            said.append(Said(sentences[kind] % words, str(step)))
        return said


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
            ("0", gettext_lazy("None")),
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
        data = super().clean()
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


class ComposeForm(forms.Form):
    """The turn being composed (NMBR 9 ++): the steps added so far and the piece placed now.

    ``piece``: "card" (the card's tile), "F1"/"F2" (a gap filler), "build" (the reserved
    tile), "move" (the tile at ``src`` moved with the special tile "move"); ``with``: the
    special tiles used on the card's tile; ``from``: the level marker of the card taken.
    """

    steps = forms.CharField(required=False, max_length=400)
    piece = OptionalChoiceField(
        default="",
        choices=[(p, p) for p in ("", "none", "card", "F1", "F2", "build", "move")],
    )
    specials = forms.CharField(required=False, max_length=60)
    marker = StrictIntegerField(required=False, min_value=0, max_value=4)
    src = forms.CharField(required=False, max_length=30)

    def __init__(self, data=None, **kwargs):
        if data is not None:
            data = {
                key: data.get(name)
                for key, name in (
                    ("steps", "steps"),
                    ("piece", "piece"),
                    ("specials", "with"),
                    ("marker", "from"),
                    ("src", "src"),
                )
                if data.get(name) not in (None, "")
            }
        super().__init__(data, **kwargs)

    def clean_steps(self) -> str:
        text = self.cleaned_data["steps"].strip()
        if text:
            try:
                text = str(Turn.parse(text))
            except InvalidMove as exc:
                raise forms.ValidationError(str(exc)) from None
        return text

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

    def compose(self) -> Compose:
        data = self.cleaned_data
        return Compose(data["steps"], data["piece"], data["specials"], data["marker"], data["src"])


@dataclass(frozen=True, slots=True)
class Compose:
    """A turn being composed; ``query()`` writes it back into a page address."""

    steps: str = ""
    piece: str = ""
    specials: tuple[str, ...] = ()
    marker: int | None = None
    source: Placement | None = None

    def query(self) -> dict[str, str]:
        pairs = {
            "steps": self.steps,
            "piece": self.piece,
            "with": ",".join(self.specials),
            "from": "" if self.marker is None else str(self.marker),
            "src": "" if self.source is None else str(self.source),
        }
        return {key: value for key, value in pairs.items() if value}

    def then(self, step: str) -> Compose:
        """The composition with ``step`` added to the steps, choosing the next piece anew."""
        return Compose("; ".join(s for s in (self.steps, step) if s), marker=self.marker)


class MoveForm(PlacementForm):
    """A turn to confirm: the steps composed so far, the piece placed now (the card's tile
    ``number`` by default) and where, and the number of moves the page knew of. ``turn``
    instead posts a whole turn that places nothing ("reject", "reserve")."""

    number = StrictIntegerField(required=False, min_value=0, max_value=9)
    ply = StrictIntegerField(min_value=0, max_value=100_000)
    turn = OptionalChoiceField(
        default="",
        choices=[
            (t, t) for t in ("", "reject", "reserve", *(f"reserve from {m}" for m in range(5)))
        ],
    )

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        if data is not None and (data.get("turn") or data.get("piece") == "none"):
            for name in ("x", "y", "rotation"):
                self.fields[name].required = False


#: The fields of a plain placement (the card's tile, nothing composed) and their bounds: what
#: nearly every preview and move sends, read without the forms' work (a form costs 0.1-0.2 ms
#: of CPU, this 0.01). Anything else, or anything out of bounds, goes through the forms,
#: which give the messages.
PLAIN_PREVIEW = {"x": (-REACH, REACH), "y": (-REACH, REACH), "rotation": (0, 3)}
PLAIN_MOVE = {**PLAIN_PREVIEW, "number": (0, 9), "ply": (0, 100_000)}
#: What else a plain move's form may post (empty fields of a form count as absent).
PLAIN_EXTRA = frozenset({"csrfmiddlewaretoken"})


def _plain(data: QueryDict, fields: dict[str, tuple[int, int]]) -> dict[str, int] | None:
    """``data`` read as a plain placement with ``fields``, or None if it is not one (then
    the forms read it)."""
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


def _step_text(compose: Compose, number: int | None, at: tuple[int, int, int]) -> str:
    """The step that puts the piece being placed at ``at``; ValueError if there is none."""
    x, y, rotation = at
    piece = compose.piece or "card"
    if piece in FILLERS:
        return f"fill {Placement(piece, x, y, rotation)}"
    if piece == "move":
        if compose.source is None:
            raise ValueError(_("Choose the tile to move."))
        target = compose.source.moved(x, y, rotation)
        return f"move {compose.source} to {target}"
    if number is None:
        raise ValueError(_("number: this field is required."))
    if piece == "build":
        return f"build {Placement(number, x, y, rotation)}"
    placement = Placement(number, x, y, rotation, mirrored="black" in compose.specials)
    return str(Place(placement, compose.specials, compose.marker))


@dataclass(frozen=True, slots=True)
class Display:
    """One player's display as the viewer may see it."""

    seat: Seat
    score: int
    svg: str
    placed: int
    to_move: bool
    specials_used: tuple[str, ...] = ()
    fillers_used: tuple[str, ...] = ()
    #: Points scored on each level from 1 up: (level, points).
    levels: tuple[tuple[int, int], ...] = ()


def _default_ghost(
    board: Board,
    piece: int | str,
    relax: tuple[str, ...] = (),
    mirrored: bool = False,
    max_level: int | None = None,
) -> Placement:
    """A legal spot near the middle of the display, so Confirm works at once (the middle
    itself when the piece fits nowhere)."""
    spots = board.legal_spots(piece, relax, mirrored, max_level)
    cells = [c for p, _ in board.tiles for c in p.cells()]
    cx = sum(x for x, _ in cells) / len(cells) if cells else 0
    cy = sum(y for _, y in cells) / len(cells) if cells else 0
    if not spots:
        return Placement(piece, round(cx), round(cy), 0, mirrored=mirrored)
    # The nearest to the middle; among equally near ones the first in notation order
    # (placements made only for those: there are hundreds of legal spots).
    distances = [(x - cx) ** 2 + (y - cy) ** 2 for x, y, _ in spots]
    nearest = min(distances)
    return min(
        (
            Placement(piece, *spot, mirrored=mirrored)
            for spot, d in zip(spots, distances, strict=True)
            if d == nearest
        ),
        key=str,
    )


def _drafted_words(mv: MatchView, so_far: Turn, own) -> list[Said]:
    """The steps of the turn composed so far in words, as the log will tell them (``own``:
    the player's display after them, which says the level of each piece)."""
    pieces = [
        step.target if isinstance(step, Move) else step.placement
        for step in so_far.steps
        if isinstance(step, Place | Fill | Build | Move)
    ]
    levels = tuple(max(lv for p, lv in own.tiles if p == piece) for piece in pieces)
    name = shown(mv.seats[own.player].player.username)
    return StepWords()(name, Logged(0, so_far, levels))


def _pieces(view, main_done: bool) -> list[str]:
    """What a turn may place next from ``view`` (the turn composed so far): the card's tile
    until it is placed, the gap fillers still held, the reserved tile, a tile to move where
    one is free to move."""
    decision = view.decision
    keys = [] if main_done else ["card"]
    keys += [f for f in ("F1", "F2") if f in decision.fillers]
    if view.reserved is not None:
        keys.append("build")
    if "move" in decision.specials and _movable(view.displays[decision.player].board()):
        keys.append("move")
    return keys


def _movable(board: Board) -> list[tuple[Placement, int]]:
    """The number tiles the special tile "move" may take: nothing lies on them."""
    movable = []
    for placement, level in board.tiles:
        if placement.number is None:
            continue
        try:
            board.copy().remove(placement)
        except IllegalPlacement:
            continue
        movable.append((placement, level))
    return sorted(movable, key=lambda t: (t[1], t[0].y, t[0].x))


class Nmbr9Web:
    """The web adapter of NMBR 9 (see ``games.web``)."""

    slug = "nmbr9"
    template = "games/nmbr9/play.html"
    replay_template = "games/nmbr9/replay.html"
    options_form = OptionsForm
    prefs: dict[str, str] = {}

    @property
    def tutorial(self):
        """The game's "Learn to play" (``games.web.nmbr9.tutorial``)."""
        from games.web.nmbr9.tutorial import TUTORIAL  # it reads this module's reasons

        return TUTORIAL

    # ----------------------------------------------------------------- options

    def describe(self, options: dict[str, Any]) -> list[str]:
        """The options of a match in a few words, for its heading and the lobby."""
        words = [_("free pace") if options.get("pace") == "free" else _("rounds pace")]
        removed = options.get("removed", 0)
        if removed == "random":
            words.append(_("a random number of cards removed"))
        elif removed:
            words.append(
                ngettext("%(count)s card removed", "%(count)s cards removed", removed)
                % {"count": removed}
            )
        if options.get("start_tiles"):
            words.append(_("new start tiles"))
        if options.get("fillers"):
            words.append(_("gap fillers"))
        specials = options.get("specials")
        if specials in ("random2", ["random2"]):
            words.append(_("2 random special tiles"))
        elif specials:
            names = ", ".join(special_label(s) for s in specials)
            words.append(_("special tiles %(names)s") % {"names": names})
        variant = options.get("variant", "base")
        if variant != "base":
            words.append(
                {"two_of_three": _("2 of 3"), "level_to_level": _("level to level")}[variant]
            )
        return words

    # ----------------------------------------------------------------- the page

    def read_query(self, query: QueryDict) -> dict[str, Any]:
        """What a GET asks for besides the page: a preview (``at``, the turn being composed)
        or an enlarged opponent (``focus``). ValueError with a message for the player if it
        cannot be read."""
        if "focus" in query:
            try:
                return {"focus": parse_int(query["focus"], minimum=0, maximum=99)}
            except ValueError:
                raise ValueError(_("focus: not a player.")) from None
        plain = _plain(query, PLAIN_PREVIEW)
        if plain is not None:
            at = (plain["x"], plain["y"], plain["rotation"])
            return {"preview": True, "at": at, "compose": Compose()}
        form = ComposeForm(query)
        if not form.is_valid():
            raise ValueError(first_error(form))
        compose = form.compose()
        at = None
        if {"x", "y", "rotation"} & set(query):
            placed = PlacementForm(query)
            if not placed.is_valid():
                raise ValueError(first_error(placed))
            data = placed.cleaned_data
            at = (data["x"], data["y"], data["rotation"])
        if at is None and compose == Compose():
            return {}
        return {"preview": True, "at": at, "compose": compose}

    def context(
        self,
        mv: MatchView,
        *,
        preview: bool = False,
        at: tuple[int, int, int] | None = None,
        compose: Compose | None = None,
        focus: int | None = None,
    ) -> dict[str, Any]:
        """The play area of the page from the viewer's view (and the turn they compose)."""
        view, seats = mv.view, mv.seats
        me = mv.seat.index if mv.seat is not None else 0
        mine = view.displays[me]
        decision = view.decision if mv.is_player and not mv.seat.has_left else None
        context: dict[str, Any] = {
            "round": view.round,
            "rounds": view.rounds,
            "score": mine.score,
            "supply": sorted((view.tiles_left or view.supply).items()),
            "waiting_for": [seats[i] for i in view.waiting_for if i != me] if mv.is_player else [],
            "waiting_names": ", ".join(
                shown(seats[i].player.username) for i in view.waiting_for if i != me
            ),
            "finished_playing": view.rounds is not None and mine.progress >= view.rounds,
            "focus": focus,
            "plusplus": view.options.plusplus,
            "specials": [special_label(s) for s in view.specials],
            "level_markers": view.level_markers,
            "pile": view.pile,
            "round_cards": view.round_cards,
            "lost": view.lost,
        }
        waiting = set(view.waiting_for)
        # A preview shows only the turn: the opponents' boards are drawn for pages alone.
        context["displays"] = (
            []
            if preview
            else [
                Display(
                    seat=seats[d.player],
                    score=d.score,
                    svg=board_svg(
                        board,
                        title=_("Display of %(player)s")
                        % {"player": shown(seats[d.player].player.username)},
                        css_class="board" if d.player == focus else "board small",
                    ),
                    placed=built(d),
                    to_move=d.player in waiting,
                    specials_used=tuple(special_label(n) for n in d.specials_used),
                    fillers_used=d.fillers_used,
                    levels=tuple(points_by_level(board)),
                )
                for d in view.displays
                if d.player != me
                for board in (d.board(),)
            ]
        )
        ghost = None
        if decision is not None:
            ghost = self._compose(mv, context, compose or Compose(), at)
        else:
            context["number"] = None
        board = context.pop("board", None) or mine.board()
        context["svg"] = board_svg(
            board,
            ghost=ghost,
            ghost_legal=context.get("legal", False),
            interactive=ghost is not None,
            title=_("Display of %(player)s") % {"player": shown(seats[me].player.username)},
            coordinates=True,
        )
        context["levels"] = points_by_level(board)
        context["layers"] = list(range(board.height())) if board.height() > 1 else []
        context["legend"] = legend()
        return context

    def _compose(
        self, mv: MatchView, context: dict[str, Any], compose: Compose, at
    ) -> Placement | None:
        """Fill ``context`` with the turn being composed; the piece being placed, if any."""
        url = mv.match.get_absolute_url()
        # "2 of 3": build or reject is chosen before the tile is tried (RULES.md 6.5), so
        # until the player has chosen to build, nothing composed is shown, only the choice.
        choose_first = "build" in mv.may_commit
        if choose_first:
            compose, at = Compose(), None
        drafted, refused = draft(mv, compose.steps) if compose.steps else (mv.view, None)
        if refused is not None:
            context["error"] = sentence(reason_text(refused))
            compose, drafted = Compose(marker=compose.marker), mv.view
        decision = drafted.decision
        own = drafted.displays[decision.player]
        board = own.board()
        so_far = Turn.parse(compose.steps) if compose.steps else None
        main_done = so_far is not None and so_far.main is not None
        cards = dict(decision.cards)
        marker = compose.marker if compose.marker in cards else decision.cards[0][0]
        specials = tuple(s for s in compose.specials if s in decision.specials)
        specials = specials[: decision.markers]
        piece = "" if compose.piece == "none" else compose.piece
        if piece == "" and not main_done and not choose_first:
            piece = "card"
        if (
            (piece == "card" and main_done)
            or (piece in FILLERS and piece not in decision.fillers)
            or (piece == "build" and drafted.reserved is None)
            or (piece == "move" and "move" not in decision.specials)
        ):
            piece = ""
        source = compose.source if piece == "move" else None
        usual = "card" if not main_done and not choose_first else ""
        compose = Compose(
            compose.steps,
            "" if piece == usual else piece,
            specials if piece == "card" else (),
            marker,
            source,
        )
        number = {"card": cards.get(marker), "build": drafted.reserved}.get(piece)

        def link(changed: Compose, at=None) -> str:
            query = changed.query()
            if at is not None:
                query.update(x=at[0], y=at[1], rotation=at[2])
            return f"{url}?{urlencode(query)}" if query else url

        context.update(
            number=cards.get(marker) if not main_done else None,
            compose=compose,
            piece=piece,
            compose_fields=compose.query(),
            steps=_drafted_words(mv, so_far, own) if so_far else [],
            main_done=main_done,
            choose_first=choose_first,
            board=board,
            markers=decision.markers,
            fillers=decision.fillers,
            reserved=drafted.reserved,
            reserved_cap=decision.reserved_cap,
            reserved_limit=decision.reserved_limit,
            may_reject=choose_first,
            may_reserve="reserve" in decision.specials and not compose.steps and not choose_first,
            reserve_turn="reserve" if marker is None else f"reserve from {marker}",
            undo_url=link(Compose("; ".join(str(s) for s in so_far.steps[:-1]), marker=marker))
            if so_far
            else None,
        )
        if len(decision.cards) > 1 or marker is not None:
            context["cards"] = [
                {
                    "marker": m,
                    "number": n,
                    "cap": decision.cap(m),
                    "chosen": m == marker and not main_done,
                    "url": link(Compose(compose.steps, "card", (), m)),
                }
                for m, n in decision.cards
            ]
        labels = {
            "card": _("Your %(number)s") % {"number": cards.get(marker)},
            "F1": _("Gap filler %(filler)s") % {"filler": "F1"},
            "F2": _("Gap filler %(filler)s") % {"filler": "F2"},
            "build": _("Reserved %(number)s") % {"number": drafted.reserved},
            "move": _("Move a tile"),
        }
        context["pieces"] = [
            {
                "label": labels[key],
                "url": link(Compose(compose.steps, key, (), marker)),
                "on": key == piece,
            }
            for key in ([] if choose_first else _pieces(drafted, main_done))
        ]
        if piece == "card":
            context["toggles"] = [
                {
                    "name": name,
                    "label": special_label(name),
                    "on": name in specials,
                    "url": link(
                        replace(
                            compose,
                            specials=tuple(
                                s for s in TILE_SPECIALS if (s in specials) != (s == name)
                            ),
                        ),
                        at,
                    ),
                    "enabled": name in specials
                    or (name in decision.specials and len(specials) < decision.markers),
                }
                for name in TILE_SPECIALS
                if name in drafted.specials
            ]
        if piece == "move" and source is None:
            context["movable"] = [
                {"tile": p, "level": level, "url": link(replace(compose, source=p))}
                for p, level in _movable(board)
            ]
            return None
        if not piece:
            return None
        if piece == "move":
            moved = board.copy()
            cap = moved.remove(source)
            ghost_piece, mirrored, relax = source.piece, source.mirrored, ()
            start = moved
        else:
            ghost_piece = piece if piece in FILLERS else number
            mirrored = "black" in specials
            relax = tuple(s for s in specials if s != "black")
            cap = (
                decision.reserved_cap
                if piece == "build"
                else decision.cap(marker if piece == "card" else None)
            )
            start = board
        if at is None:
            ghost = _default_ghost(start, ghost_piece, relax, mirrored, cap)
        else:
            ghost = Placement(ghost_piece, *at, mirrored=mirrored)
        step = _step_text(compose, number, (ghost.x, ghost.y, ghost.rotation))
        after, refused = draft(mv, "; ".join(s for s in (compose.steps, step) if s))
        context["legal"] = refused is None
        if refused is None:
            # The highest: a tile on an identical one ("one") lies on top of it.
            level = max(lv for p, lv in after.displays[decision.player].tiles if p == ghost)
            context["level"] = level
            # What this piece adds to the turn's score so far ("-9": a tile moved down).
            gain = after.displays[decision.player].score - own.score
            context["gain"] = f"{gain:+d}" if gain else ""
            # "Add, then more…" only where the turn can go on after this step.
            if _pieces(after, main_done or piece == "card"):
                context["add_url"] = link(compose.then(step))
        else:
            context["reason"] = reason_text(refused)
        x, y, r = ghost.x, ghost.y, ghost.rotation
        steps_to = {
            "left": (x - 1, y, r),
            "right": (x + 1, y, r),
            "up": (x, y - 1, r),
            "down": (x, y + 1, r),
            "rotate": (x, y, (r + 1) % 4),
            "rotate_back": (x, y, (r - 1) % 4),
        }
        context["moves"] = {name: link(compose, to) for name, to in steps_to.items()}
        context["preview_base"] = link(compose)
        context["ghost"] = ghost
        context["ghost_w"], context["ghost_h"] = ghost.size
        context["move"] = step
        if piece == "move":
            context["board"] = start
        return ghost

    def preview_url(self, mv: MatchView, context: dict[str, Any]) -> str | None:
        """The address of the page showing this preview (kept in the browser's history): the
        turn composed so far and where its piece is shown; None when no turn is composed."""
        if "compose_fields" not in context:
            return None
        query = dict(context["compose_fields"])
        ghost = context.get("ghost")
        if ghost is not None:
            query.update(x=ghost.x, y=ghost.y, rotation=ghost.rotation)
        url = mv.match.get_absolute_url()
        return f"{url}?{urlencode(query)}" if query else url

    def log(self, mv: MatchView) -> list[LogEntry]:
        """What happened in the match as far as the viewer can see it, newest first."""
        view, seats = mv.view, mv.seats
        entries = []
        horizon = view.round if view.pace == "free" and mv.is_player and not view.over else None
        # Each sentence is looked up once, not once per entry: a late round has dozens.
        words, in_round = StepWords(), _("Round %(round)s")
        rounds: dict[int, str] = {}
        for display in view.displays:
            name = shown(seats[display.player].player.username)
            order = 0
            for logged in display.log:
                when = rounds.get(logged.round)
                if when is None:
                    when = rounds[logged.round] = in_round % {"round": logged.round}
                for said in words(name, logged):
                    entry = LogEntry(when, said.text, said.notation)
                    entries.append((logged.round, display.player, order, entry))
                    order += 1
        for seat in seats:
            if seat.has_left:
                round = seat.progress + (seat.state == Seat.State.RESIGNED)
                if horizon is not None:
                    round = min(round, horizon)
                when = in_round % {"round": round}
                entries.append((round, 99, 0, LogEntry(when, left_text(seat))))
        # Newest first: by round, then player, then the order of a player's steps.
        entries.sort(key=lambda e: e[:3], reverse=True)
        return [entry for *_, entry in entries]

    # ----------------------------------------------------------------- moves

    def refusal(self, refused) -> str:
        """A refused move (``IllegalMove`` or ``MoveRefused``) as a sentence for the page."""
        return sentence(reason_text(refused))

    def move(self, post: QueryDict) -> tuple[str, int]:
        """The turn a form posts, with the ply its page knew; ValueError with a message."""
        plain = _plain(post, PLAIN_MOVE)
        if plain is not None:
            at = (plain["x"], plain["y"], plain["rotation"])
            return _step_text(Compose(), plain["number"], at), plain["ply"]
        form = MoveForm(post)
        if not form.is_valid():
            raise ValueError(first_error(form))
        data = form.cleaned_data
        if data["turn"]:
            return data["turn"], data["ply"]
        composed = ComposeForm(post)
        if not composed.is_valid():
            raise ValueError(first_error(composed))
        compose = composed.compose()
        step = ""
        if compose.piece != "none":
            at = (data["x"], data["y"], data["rotation"])
            step = _step_text(compose, data["number"], at)
        text = "; ".join(s for s in (compose.steps, step) if s)
        if not text:
            raise ValueError(_("Choose what to play."))
        return text, data["ply"]

    # ----------------------------------------------------------------- replays

    def replay(
        self, mv: MatchView, query: QueryDict, *, par_line: list[str] | None = None
    ) -> dict[str, Any]:
        """Every display after a round (``?round=``), for stepping through a finished match,
        with the turns each player took in that round, step by step in words (the match log's
        sentences, ``Said``), and the tiles they placed in it highlighted; the scores by round
        as a chart. On a puzzle, with ``par_line`` (the moves that reach par), the par game
        with as many tiles beside."""
        timelines = _timelines(history(mv))
        per_round = mv.view.options.steps_per_round  # cards a player deals with in a round
        steps = max((t[-1].progress for t in timelines.values()), default=0)
        rounds = -(-steps // per_round)
        try:
            round = parse_int(query.get("round", str(rounds)), minimum=0)
        except ValueError:
            round = rounds
        round = min(round, rounds)
        # The match is over: every player's steps are known in full.
        logs = {display.player: display.log for display in mv.view.displays}
        words = StepWords()
        displays, turns = [], []
        for player, timeline in timelines.items():
            seat = mv.seats[player]
            step = _step_at(timeline, round * per_round)
            start = _step_at(timeline, (round - 1) * per_round) if round else step
            display = timeline[step]
            name = shown(seat.player.username)
            texts = [
                said
                for logged in logs[player]
                if logged.round == round
                for said in words(name, logged)
            ]
            before = set(timeline[start].tiles)
            placed_now = [tile for tile in display.tiles if tile not in before]
            title = _("%(player)s after round %(round)s") % {
                "player": shown(seat.player.username),
                "round": round,
            }
            svg = board_svg(display.board(), title=title, highlight=placed_now)
            displays.append(Display(seat, display.score, svg, built(display), to_move=False))
            turns.append((seat, texts))
        par = _par_boards(mv, par_line) if par_line else None
        series = [
            (
                shown(mv.seats[player].player.username),
                [timeline[_step_at(timeline, r * per_round)].score for r in range(rounds + 1)],
            )
            for player, timeline in timelines.items()
        ]
        reference = _("Par game") if par else ""
        if par:
            scores = [par[max(0, min(r, len(par)) - 1)].score() for r in range(rounds + 1)]
            series.append((reference, scores))
        return {
            "turns": turns,
            "round": round,
            "rounds": rounds,
            "displays": displays,
            "par": _par_display(par, displays[0].placed) if par else None,
            "chart": score_chart(series, rounds, round, reference=reference),
            "previous": round - 1 if round > 0 else None,
            "next": round + 1 if round < rounds else None,
        }

    # ----------------------------------------------------------------- home page

    tagline = gettext_lazy(
        "Stack the numbers 0 to 9 into a tower: the higher a tile lies, the more it scores."
    )

    def picture(self) -> SafeString:
        """A display of a few tiles on two levels, to show what the game looks like."""
        return board_svg(_picture_board(), title=_("A display of NMBR 9"), css_class="board thumb")

    def glance(self, mv: MatchView) -> SafeString:
        """The viewer's own display, small, for a list of their matches."""
        me = mv.seat.index if mv.seat is not None else 0
        title = _("Your display in %(match)s") % {"match": mv.match}
        return board_svg(mv.view.displays[me].board(), title=title, css_class="board thumb")

    # ----------------------------------------------------------------- help

    help_template = "games/nmbr9/help.html"

    def help_context(self) -> dict[str, Any]:
        """Pictures for the help page: every piece of NMBR 9 ++ and a few placements."""

        def picture(text: str, title: str) -> SafeString:
            board = Board.from_tiles(
                [(Placement.parse(p), int(lv)) for p, lv in (t.split("/") for t in text.split())]
            )
            return board_svg(board, title=title, css_class="board small")

        return {
            "start_tiles": [
                (name, picture(f"{name}@0,0r0/0", _("Start tile %(name)s") % {"name": name}))
                for name in ("S1", "S2", "S3", "S4", "S5", "S6")
            ],
            "fillers": picture("8@0,0r0/0 F1@3,1r0/0 F2@3,2r0/0", _("Gap fillers next to an 8")),
            "mirrored": picture("7@0,0r0/0 7m@4,0r0/0", _("A 7 and a mirrored 7")),
            "specials": [str(text) for text in SPECIAL_NAMES.values()],
        }

    # ----------------------------------------------------------------- puzzles

    def puzzle_start(self, puzzle) -> dict[str, str]:
        """The display a puzzle starts from: ``svg`` and a sentence, ``text``."""
        start = Placement.parse(puzzle.start)
        board = Board.from_placements([start])
        return {
            "svg": board_svg(
                board, title=_("Start of %(puzzle)s") % {"puzzle": puzzle}, css_class="board small"
            ),
            "text": _("Starts with a %(number)s in the centre.") % {"number": start.number},
        }


@cache
def _picture_board() -> Board:
    """Seven tiles placed by the fallback policy from a fixed deal: two levels."""
    board = Board()
    for number in (8, 5, 9, 0, 6, 1, 7):
        board.place(choose(board, number))
    return board


def _par_boards(mv: MatchView, line: list[str]) -> list[Board]:
    """The game that reaches the puzzle's par after each of its tiles (the first holds
    only the start tile)."""
    return [view.displays[0].board() for view in solo_line(mv, line)]


def _par_display(boards: list[Board], placed: int) -> dict[str, Any]:
    """The par game when it has ``placed`` tiles (the start tile is the first)."""
    board = boards[max(0, min(placed, len(boards)) - 1)]
    title = _("Par game with %(count)s tiles") % {"count": placed}
    return {"svg": board_svg(board, title=title), "score": board.score(), "placed": placed}


#: The reasons the rules give for refusing a placement, by their code, for the page (the
#: engine's own English text is for its command line).
PLACEMENT_REASONS = {
    "out of range": gettext_lazy(
        "out of range: the display ends %(window)s squares from its centre"
    ),
    "overhang": gettext_lazy("overhang: part of the tile would hang over nothing"),
    "gap": gettext_lazy("gap: the tile would bridge a hole"),
    "uneven": gettext_lazy("uneven: the squares beneath are not all at the same height"),
    "one support": gettext_lazy("needs two tiles beneath: it would rest on a single tile"),
    "not adjacent": gettext_lazy(
        "not adjacent: it must share an edge with a tile on the same level"
    ),
    "open gap": gettext_lazy("open gap: a bridged gap must be closed all round by tiles"),
    "partly covered gap": gettext_lazy("gap not covered: a bridging tile must cover the whole gap"),
    "too high": gettext_lazy("too high: this tile may only lie on levels 0-%(max_level)s"),
    "covered": gettext_lazy("covered: only a tile with nothing on it can be moved"),
    "not movable": gettext_lazy("not movable: start tiles and gap fillers never move"),
    "not in display": gettext_lazy("not in the display: there is no such tile to move"),
}


#: The reasons the rules give for refusing a turn (NMBR 9 ++ included), by their code.
TURN_REASONS = {
    "game over": gettext_lazy("the game is over"),
    "resigned": gettext_lazy("you have left this match"),
    "finished": gettext_lazy("you have placed all your tiles"),
    "waiting": gettext_lazy("waiting for the other players to finish the round"),
    "no markers": gettext_lazy("cards lie under level markers only in the variant level to level"),
    "wrong tile": gettext_lazy("the tile to place is a %(expected)s, not a %(got)s"),
    "no card": gettext_lazy("there is no such card this round"),
    "card not offered": gettext_lazy(
        "you cannot take the %(number)s under marker %(marker)s: no tile of it is left for "
        "you, or it fits nowhere"
    ),
    "special not in play": gettext_lazy("the special tile %(special)s is not in play"),
    "special used": gettext_lazy("you have already used the special tile %(special)s"),
    "no marker left": gettext_lazy("you have no marker left for the special tile %(special)s"),
    "one card": gettext_lazy("a turn deals with its card once: one place, reserve or reject"),
    "mirrored without black": gettext_lazy("a mirrored tile needs the special tile black side"),
    "black not mirrored": gettext_lazy("with the special tile black side the tile is mirrored"),
    "special on level 0": gettext_lazy(
        "the special tile %(special)s is for levels 1 and up: this tile would lie on level 0"
    ),
    "no rejects": gettext_lazy("only the variant 2 of 3 lets you reject a card"),
    "chose to build": gettext_lazy("you chose to build this card: you cannot reject it now"),
    "must build": gettext_lazy(
        "you must build this card: exactly one card of three is rejected each round"
    ),
    "no fillers": gettext_lazy("gap fillers are not in this game"),
    "filler used": gettext_lazy("you have already built your %(filler)s"),
    "move nowhere": gettext_lazy("a moved tile must go somewhere else"),
    "nothing reserved": gettext_lazy("you have no reserved tile to build"),
    "not the reserved tile": gettext_lazy("the reserved tile is a %(reserved)s, not a %(got)s"),
    "extras without tile": gettext_lazy(
        "gap fillers, moves and the reserved tile go with a built card tile"
    ),
    "invalid placement": gettext_lazy("this is not a placement the page can read"),
    "invalid turn": gettext_lazy("this is not a turn the page can read"),
}
REASONS = PLACEMENT_REASONS | TURN_REASONS


def built(display) -> int:
    """How many number tiles lie on a display (not its fillers; a rejected or reserved card
    is on none)."""
    return sum(1 for placement, _level in display.tiles if placement.number is not None)


def reason_text(refused) -> str:
    """Why the rules refused a placement or a turn, in the page's language where the reason
    is known by its code (else the engine's words)."""
    params = refused.params if hasattr(refused, "params") else {}
    special = {"special": special_label(params["special"])} if "special" in params else {}
    return base_reason_text(refused, REASONS, window=WINDOW, **special)


def _step_at(timeline: list[Any], progress: int) -> int:
    """The index in a player's timeline of their display once they had dealt with
    ``progress`` cards (their last one if they stopped before, their first if it is before
    their first)."""
    steps = [i for i, display in enumerate(timeline) if display.progress <= progress]
    return steps[-1] if steps else 0


def _timelines(frames) -> dict[int, list[Any]]:
    """Each player's display after each of their moves (index 0: at the start), from the
    frames of a finished match (a step the rules took by themselves shows with a move)."""
    timelines: dict[int, list[Any]] = {}
    for frame in frames:
        own = frame.view.displays[frame.player]
        timeline = timelines.setdefault(frame.player, [])
        if not timeline or own.progress > timeline[-1].progress:
            timeline.append(own)
        else:
            timeline[-1] = own
    return timelines


ADAPTER = Nmbr9Web()

__all__ = ["ADAPTER", "Display", "Nmbr9Web"]
