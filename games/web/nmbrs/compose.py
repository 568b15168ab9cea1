"""The play a player of nmbrs! composes on the page: the cards they select in their hand
(``?pick=`` links) and the plays those cards make on the table, with the series and the
points, else what they still need or why they make none; a play written out
(``?attempt=``) previewed (``games.nmbrs.preview``, from the player's own view)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from games.contract import IllegalMove
from games.nmbrs import JOKERS
from games.nmbrs.cards import CARDS, COLOURS
from games.nmbrs.plays import legal_plays
from games.nmbrs.preview import needs, own_position, plays, preview, why_no_play
from games.nmbrs.view import card_data
from games.web.nmbrs.words import (
    card_name,
    need_text,
    play_words,
    playable_words,
    refusal_text,
)

#: How many of the plays a hand can make now the turn lists as buttons, best first.
READY = 6


def cards(slots) -> list[dict[str, Any]]:
    """Cards on the table, each with the number it stands for."""
    return [card_data(card, number) for card, number in slots]


def _plan_data(plan) -> dict[str, Any]:
    """A play as a page shows it: its text, points and the series it makes."""
    return {
        "text": str(plan.move),
        "words": play_words(str(plan.move)),
        "points": plan.points,
        "series": [(number, cards(slots)) for number, slots in plan.changes if slots],
    }


def chances(view) -> dict[str, Any]:
    """What the viewer's hand can play now, worked out from their own view: for each card
    that starts a series or goes on one of the table's, what it can do (``playable``); the
    best plays (``ready``, at most ``READY``) and how many more there are."""
    found = legal_plays(own_position(view), view.viewer)
    starts: set[str] = set()
    series: dict[str, set[int]] = {}
    for plan in found:
        for card in plan.out:
            if plan.move.kind == "lay":
                starts.add(card)
            else:
                on = series.setdefault(card, set())
                on.update(n for n in (plan.move.series, plan.move.other) if n is not None)
    playable = {
        card: playable_words(card in starts, sorted(series.get(card, ())))
        for card in {*starts, *series}
    }
    best = sorted(
        found,
        key=lambda p: (-p.points, sum(c in JOKERS for c in p.out), len(p.out), str(p.move)),
    )
    return {
        "playable": playable,
        "ready": [_plan_data(plan) for plan in best[:READY]],
        "more_ready": max(len(best) - READY, 0),
    }


def selection(view, picked: list[str], attempt: str = "") -> dict[str, Any]:
    """What the cards a player selected in their turn make, from their ``view``: the plays
    they make, else what they still need or why they make none; a written play's preview;
    the discard of a single card."""
    context: dict[str, Any] = {}
    found = plays(view, picked)
    context["plays"] = [_plan_data(plan) for plan in found]
    if picked and not found:
        wanted = needs(view, picked)
        if wanted:
            context["needs"] = [need_text(need) for need in wanted[:3]]
        elif len(picked) == 1 and picked[0] != view.owed and not view.options.simplified:
            context["only_discard"] = card_name(picked[0])
        else:
            context["no_play"] = refusal_text(why_no_play(view, picked))
    context["attempt"] = attempt
    if attempt:
        result = preview(view, attempt)
        if isinstance(result, IllegalMove):
            context["attempt_error"] = refusal_text(result)
        else:
            context["attempt_plan"] = _plan_data(result)
    if len(picked) == 1 and not view.options.simplified:
        context["discard_card"] = card_data(picked[0])
        context["discard_name"] = card_name(picked[0])
    return context


def hand(
    view, url: str, pick: tuple[str, ...], sort: str, playable: dict[str, str] | None = None
) -> dict[str, Any]:
    """The viewer's hand in the order ``sort`` asks for, each card with the address that
    selects it or takes it out of the selection ``pick`` and what it can play now
    (``playable``, from ``chances``); the cards selected."""
    playable = playable or {}
    held = list(view.hand or ())
    if sort == "colour":
        held.sort(key=lambda c: (COLOURS.index(CARDS[c].colour), c in JOKERS, CARDS[c].number))
    picked = [card for card in pick if card in held]
    return {
        "hand": [
            {
                **card_data(card),
                "picked": card in picked,
                "playable": playable.get(card, ""),
                "toggle": pick_url(
                    url,
                    [c for c in picked if c != card] if card in picked else [*picked, card],
                    sort,
                ),
            }
            for card in held
        ],
        "sort_url": f"{url}?{urlencode({'sort': 'number' if sort == 'colour' else 'colour'})}",
        "picked": picked,
        "any_playable": any(card in playable for card in held),
        "clear_url": pick_url(url, [], sort),
    }


def pick_url(url: str, picked: list[str], sort: str) -> str:
    """The page with ``picked`` selected (an empty ``pick``: none, still a preview)."""
    query = [("pick", c) for c in picked] or [("pick", "")]
    if sort != "number":
        query.append(("sort", sort))
    return f"{url}?{urlencode(query)}"
