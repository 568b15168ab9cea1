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
    """A time control as people say it: "15 seconds", "1 hour", "12 hours", "3 days"."""
    if value is None:
        return ""
    total = int(value.total_seconds())
    if total < 3600:
        if total % 60 or total < 120:  # real-time paces are said in seconds: "60 seconds"
            return ngettext("%(count)d second", "%(count)d seconds", total) % {"count": total}
        minutes = total // 60
        return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
    hours = total // 3600
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
    """A match's game and options in a few words: "NMBR 9 · free pace" (a tournament's game:
    no pace, which is the tournament's way, alone or in step)."""
    from games.models import Match
    from games.registry import find_game
    from games.web import adapter_for

    options = match.options
    if match.kind == Match.Kind.DUPLICATE:
        options = {name: value for name, value in options.items() if name != "pace"}
    words = [find_game(match.game).name, *adapter_for(match.game).describe(options)]
    return " · ".join(words)


def utc_text(value: datetime) -> str:
    """An instant as pages write it (``when``) and the site's words say it: its short date and
    time in UTC, in the active language, and "UTC"."""
    return f"{date_format(localtime(value, UTC), 'SHORT_DATETIME_FORMAT')} UTC"


@register.filter
def when(value: datetime | None, style: str = "datetime") -> str:
    """An instant as the reader's browser shows it, in its own time zone (``style`` "date"
    for the day only, "time" for the time of day, with the day too if it is not today's,
    "zoned" for the day and time with the zone named, "title" to keep the text and put the
    time on hover); the server writes UTC, which stays on hover and is what a page without
    JavaScript shows."""
    if value is None:
        return ""
    value = localtime(value, UTC)
    utc = utc_text(value)
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


@register.simple_tag
def server_now() -> int:
    """The server's clock now, in milliseconds since the epoch: a page's countdowns count
    in the server's time, whatever the reader's own clock says (static/js/site.js)."""
    return int(now().timestamp() * 1000)
