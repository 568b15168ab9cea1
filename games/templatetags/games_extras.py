from datetime import UTC, datetime, timedelta

from django import template
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.timesince import timesince
from django.utils.timezone import localtime, now
from django.utils.translation import gettext, ngettext

register = template.Library()


@register.filter
def duration(value: timedelta | None) -> str:
    """A time control as people say it: "1 hour", "12 hours", "3 days"."""
    if value is None:
        return ""
    hours = int(value.total_seconds() // 3600)
    if hours % 24 == 0:
        days = hours // 24
        return ngettext("%(count)d day", "%(count)d days", days) % {"count": days}
    return ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours}


@register.filter
def get_item(mapping: dict, key):
    return mapping.get(key)


@register.filter
def seconds(value: int) -> str:
    """A duration in seconds as "1:05:09" or "5:09"."""
    minutes, secs = divmod(int(value), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


@register.filter
def described(match) -> str:
    """A match's game and options in a few words: "NMBR 9 · free pace"."""
    from games.registry import find_game
    from games.web import adapter_for

    words = [find_game(match.game).name, *adapter_for(match.game).describe(match.options)]
    return " · ".join(words)


@register.filter
def when(value: datetime | None, style: str = "datetime") -> str:
    """An instant as the reader's browser shows it, in its own time zone (``style`` "date"
    for the day only, "time" for the time of day, with the day too if it is not today's,
    "title" to keep the text and put the time on hover); the server writes UTC, which stays
    on hover and is what a page without JavaScript shows."""
    if value is None:
        return ""
    value = localtime(value, UTC)
    utc = f"{date_format(value, 'SHORT_DATETIME_FORMAT')} UTC"
    if style == "date":
        text = date_format(value, "SHORT_DATE_FORMAT")
    elif style == "time" and value.date() == localtime(now(), UTC).date():
        text = f"{date_format(value, 'TIME_FORMAT')} UTC"
    else:
        text = utc
    return format_html(
        '<time datetime="{}" data-local="{}" title="{}">{}</time>',
        value.isoformat(),
        style,
        utc,
        text,
    )


@register.filter
def ago(value: datetime) -> str:
    """How long ago ``value`` was ("3 minutes ago"; "just now" within the first minute)."""
    if now() - value < timedelta(minutes=1):
        return gettext("just now")
    return gettext("%(since)s ago") % {"since": timesince(value)}


@register.filter
def shown(name: str) -> str:
    """A player's name as shown ("closed account 12" for a closed account's)."""
    from games.names import shown as shown_name

    return shown_name(str(name))
