"""The nmbrs! templates' filters: a card in words (``{{ c|card_words }}``)."""

from __future__ import annotations

from typing import Any

from django import template

from games.web.nmbrs import words

register = template.Library()


@register.filter
def card_words(card: dict[str, Any]) -> str:
    """A card (``card_data``) as a screen reader says it, in the page's language."""
    return words.card_words(card)
