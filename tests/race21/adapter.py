"""Race to 21 on the site: its web adapter (``games.web.base.WebAdapter``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.inputs import parse_int
from games.names import shown
from games.services import MatchView
from games.services import history as match_history
from games.web.base import LogEntry, WebAdapter, first_error, reason_text


class OptionsForm(forms.Form):
    multiplayer_fields = ()

    target = forms.IntegerField(
        label=gettext_lazy("Target"), min_value=10, max_value=50, initial=21, required=False
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("target") is None:
            cleaned.pop("target", None)
        return cleaned


class MoveForm(forms.Form):
    move = forms.CharField(max_length=10)
    ply = forms.IntegerField(min_value=0)


class Race21Web:
    slug = "race21"
    template = "games/race21/play.html"
    replay_template = "games/race21/replay.html"
    help_template = "games/race21/help.html"
    essentials_template = "games/race21/essentials.html"
    tagline = gettext_lazy("Add 1, 2 or 3 in turn: whoever reaches 21 wins.")
    options_help = gettext_lazy("How this game is played")
    options_form = OptionsForm
    prefs: dict[str, str] = {}
    tutorial = None
    stylesheets = ("race21/race21.css",)
    scripts: tuple[str, ...] = ()

    def describe(self, options: dict[str, Any]) -> list[str]:
        return [_("to %(target)s") % {"target": options.get("target", 21)}]

    def read_query(self, query: QueryDict) -> dict[str, Any]:
        return {}

    def context(self, mv: MatchView, *, preview: bool = False) -> dict[str, Any]:
        view = mv.view
        mine = mv.seat is not None and view.next == mv.seat.index
        playing = mine and mv.match.status == "active" and not mv.seat.has_left
        return {
            "total": view.total,
            "target": view.target,
            "next_seat": None if view.next is None else mv.seats[view.next],
            "winner": None if view.winner is None else mv.seats[view.winner],
            "hand": view.hand,
            "steps": self.steps(view) if playing else [],
        }

    def steps(self, view) -> list[int]:
        """What the viewer may add: 1, and the cards of their hand, as far as the target."""
        room = view.target - view.total
        return sorted(s for s in {1, *view.hand} if s <= room)

    def preview_url(self, mv: MatchView, context: dict[str, Any]) -> str | None:
        return None

    def log(self, mv: MatchView) -> list[LogEntry]:
        entries, total = [], 0
        for number, (player, added) in enumerate(mv.view.history, start=1):
            total += added
            name = shown(mv.seats[player].player.username)
            text = _("%(player)s adds %(added)s: %(total)s.") % {
                "player": name,
                "added": added,
                "total": total,
            }
            entries.append(LogEntry(_("Move %(n)s") % {"n": number}, text, f"add {added}"))
        return entries[::-1]

    def standing(self, mv: MatchView) -> str:
        return _("%(total)s of %(target)s") % {"total": mv.view.total, "target": mv.view.target}

    def refusal(self, refused: Exception) -> str:
        return reason_text(
            refused,
            {
                "not_your_turn": _("It is not your turn."),
                "too_far": _("You may add at most %(most)s."),
                "not_a_move": _("Add 1, 2 or 3."),
                "no_card": _("You hold no %(card)s."),
            },
        )

    def move(self, post: QueryDict) -> tuple[str, int]:
        form = MoveForm(post)
        if not form.is_valid():
            raise ValueError(first_error(form))
        return form.cleaned_data["move"].strip(), form.cleaned_data["ply"]

    def replay(self, mv: MatchView, query: QueryDict) -> dict[str, Any]:
        frames = [f for f in match_history(mv, everyone=True) if f.text is not None]
        last = len(frames)
        try:
            ply = min(parse_int(query.get("ply", str(last)), minimum=0), last)
        except ValueError:
            ply = last
        view = frames[ply - 1].view if ply else None
        return {
            "ply": ply,
            "plies": last,
            "total": view.total if view is not None else 0,
            "mover": mv.seats[frames[ply - 1].player] if ply else None,
            "previous": ply - 1 if ply > 0 else None,
            "next": ply + 1 if ply < last else None,
        }

    def picture(self) -> SafeString:
        return render_to_string("games/race21/picture.html")

    def glance(self, mv: MatchView) -> SafeString:
        return render_to_string(
            "games/race21/glance.html", {"total": mv.view.total, "target": mv.view.target}
        )

    def help_context(self) -> dict[str, Any]:
        return {}


ADAPTER: WebAdapter = Race21Web()
