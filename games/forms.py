import json
import math
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.inputs import OptionalChoiceField, StrictIntegerField
from games.models import Profile, Report
from games.models.chat import REPORT_LENGTH
from games.names import is_closed_name
from games.registry import default_game, find_game


class SignupForm(UserCreationForm):
    """A new account. Its e-mail address is not the account's until confirmed by the link
    sent there; whether another account has it already is not said (``addresses``)."""

    email = forms.EmailField(
        label=gettext_lazy("E-mail"),
        help_text=gettext_lazy("We send a link there to confirm it is yours."),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self) -> str:
        from games.services.features.guests import is_guest_name
        from games.services.match.bot_seats import is_bot_name

        name = super().clean_username()
        if name is None:  # Django's own check found the name taken (any capitals) and said so
            return ""
        if is_bot_name(name):
            raise forms.ValidationError(_("Names beginning with “bot-” belong to the site's bots."))
        if is_guest_name(name):
            raise forms.ValidationError(_("Names beginning with “guest-” are for guests."))
        if is_closed_name(name):
            raise forms.ValidationError(
                _("Names beginning with “closed-” are for closed accounts.")
            )
        return name

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip().lower()


class PasswordCheck:
    """A form asking for the player's password before it acts for them."""

    cleaned_data: dict[str, Any]  # a mixin of forms.Form, which has it

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."))
        return password


class EmailChangeForm(PasswordCheck, forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("New e-mail address"),
        help_text=gettext_lazy("We send a link there; your address changes when you follow it."),
    )
    password = forms.CharField(label=gettext_lazy("Your password"), widget=forms.PasswordInput)

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip().lower()


class CloseAccountForm(PasswordCheck, forms.Form):
    password = forms.CharField(label=gettext_lazy("Your password"), widget=forms.PasswordInput)


def usernames(text: str) -> list[str]:
    return [name for name in text.replace(",", " ").split() if name]


def invite_field(help_text) -> forms.CharField:
    """The names of the players invited: a plain text field, under which the page's script
    suggests players whose name begins with the last name typed (``players``)."""
    return forms.CharField(
        label=gettext_lazy("Invite"),
        required=False,
        max_length=200,
        help_text=help_text,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "data-player-search": reverse_lazy("players")}
        ),
    )


def link_field() -> forms.BooleanField:
    return forms.BooleanField(
        required=False,
        initial=False,
        label=gettext_lazy("Make an invitation link"),
        help_text=gettext_lazy(
            "Whoever opens the link takes a free seat, with an account or as a guest."
        ),
    )


def _games() -> list[tuple[str, str]]:
    from games.registry import GAMES

    return [(slug, rules.name) for slug, rules in GAMES.items()]


def _players(n: int) -> str:
    return ngettext("%(n)d player", "%(n)d players", n) % {"n": n}


def _player_counts(low: int, high: int) -> list[tuple[int, str]]:
    """The choices of a player count, each said in the language of the page."""
    return [(n, lazy(_players, str)(n)) for n in range(low, high + 1)]


class SideLabels:
    """A form whose labels sit beside their controls: no colon after them."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


def enabled_when(**conditions: list[str]) -> dict[str, str]:
    """The attributes of a control the page's script enables only while every other field
    named has one of the values given (``players=["1", "2"]``); without the script, or
    where the form has no such field, it stays enabled, and the form checks it anyway."""
    return {"data-enabled-when": json.dumps(conditions, separators=(",", ":"))}


class ConditionalRadioSelect(forms.RadioSelect):
    """Radio buttons of which some are enabled only under ``conditions`` (value: the
    conditions of ``enabled_when``)."""

    def __init__(self, conditions: dict[str, dict[str, list[str]]], **kwargs):
        super().__init__(**kwargs)
        self.conditions = conditions

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value in self.conditions:
            option["attrs"].update(enabled_when(**self.conditions[value]))
        return option


class PrivacyForm(SideLabels, forms.Form):
    """Whether others may watch a match while it is played (a bot game's too)."""

    private = forms.BooleanField(
        required=False,
        initial=False,
        label=gettext_lazy("Private: only its players can see it"),
        help_text=gettext_lazy(
            "Nobody else can watch it while it is played; once it is over, it can be replayed "
            "like every match."
        ),
    )


class MatchForm(SideLabels, forms.Form):
    """A new match's settings for ``game``, offering only the player counts its rules allow
    in a match; its game's options are a form of their own (``games.web``)."""

    #: Empty: the game the page is for (``game`` of the form).
    game = OptionalChoiceField(choices=_games, default="", widget=forms.HiddenInput)
    players = forms.TypedChoiceField(label=gettext_lazy("Players"), coerce=int, initial=2)
    time_control = forms.ChoiceField(
        label=gettext_lazy("Time per move"),
        choices=[
            ("1h", gettext_lazy("1 hour")),
            ("12h", gettext_lazy("12 hours")),
            ("1d", gettext_lazy("1 day")),
            ("3d", gettext_lazy("3 days")),
            ("7d", gettext_lazy("7 days")),
        ],
        initial="1d",
    )
    rated = forms.BooleanField(required=False, initial=True, label=gettext_lazy("Rated"))
    invite = invite_field(gettext_lazy("Usernames separated by commas or spaces."))
    open = forms.BooleanField(
        required=False, initial=True, label=gettext_lazy("Open the free seats in the lobby")
    )
    link = link_field()
    private = PrivacyForm.base_fields["private"]

    def __init__(self, *args, game: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        game = game or default_game()
        chosen, players = self.fields["game"], self.fields["players"]
        assert isinstance(chosen, OptionalChoiceField) and isinstance(players, forms.ChoiceField)
        chosen.default = chosen.initial = game
        counts = [n for n in find_game(game).players if n >= 2]
        players.choices = _player_counts(counts[0], counts[-1])

    def clean_invite(self) -> list[str]:
        return usernames(self.cleaned_data["invite"])


class SettingsForm(SideLabels, forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["email_on_move", "show_chats", "language"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Empty is a choice of its own here, not "none chosen yet".
        made = self.fields["language"]
        self.fields["language"] = OptionalChoiceField(
            label=made.label,
            help_text=made.help_text,
            choices=[("", _("Your browser's language")), *settings.LANGUAGES],
            default="",
        )


class PushKindsForm(SideLabels, forms.ModelForm):
    """Which kinds of push notification the player's devices get."""

    class Meta:
        model = Profile
        fields = ["push_move", "push_alarm", "push_invite", "push_result"]
        labels = {
            "push_move": gettext_lazy("Your move"),
            "push_alarm": gettext_lazy("Time running out"),
            "push_invite": gettext_lazy("Invitations and challenges"),
            "push_result": gettext_lazy("Results"),
        }


class ChallengeForm(SideLabels, forms.Form):
    invite = invite_field(
        gettext_lazy("Usernames separated by commas or spaces; leave empty for an open challenge.")
    )
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"), choices=_player_counts(2, 6), coerce=int, initial=2
    )
    time_control = MatchForm.base_fields["time_control"]
    rated = forms.BooleanField(required=False, initial=True, label=gettext_lazy("Rated"))
    open = forms.BooleanField(
        required=False, initial=False, label=gettext_lazy("Open the free seats in the lobby")
    )
    link = link_field()

    def clean_invite(self) -> list[str]:
        return usernames(self.cleaned_data["invite"])


#: The least time ahead of now a new tournament's suggested start is.
START_LEAD = timedelta(minutes=10)
#: Suggested starts fall on these: a full quarter hour in every time zone (every zone's
#: offset from UTC is a number of quarter hours).
START_STEP = timedelta(minutes=15)


def suggested_start(now: datetime | None = None) -> datetime:
    """The start a new tournament's form suggests: the first full quarter hour at least
    ``START_LEAD`` from now."""
    earliest = (now or timezone.now()) + START_LEAD
    step = START_STEP.total_seconds()
    return datetime.fromtimestamp(math.ceil(earliest.timestamp() / step) * step, UTC)


class ZonedStart(SideLabels, forms.Form):
    """A form with a start (``starts``) typed in the player's own time zone: the page's script
    shows the start suggested (in UTC) in the browser's zone, names the zone in the label and
    sends its IANA name in ``zone``; without the script the start is typed in UTC, as the
    label says."""

    starts = forms.DateTimeField(
        label=gettext_lazy("Start (UTC)"),
        initial=suggested_start,
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    zone = forms.CharField(
        required=False,
        max_length=64,
        widget=forms.HiddenInput(
            attrs={
                "data-zone": "starts",
                # {zone}: the zone's name, put in by the script.
                "data-zone-label": gettext_lazy("Start (your time: {zone})"),
            }
        ),
    )

    def clean(self) -> dict[str, Any]:
        """The start as typed, read in the zone sent (the field reads it in UTC)."""
        cleaned = super().clean() or self.cleaned_data
        name, starts = cleaned.get("zone", ""), cleaned.get("starts")
        if not name:
            return cleaned
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise forms.ValidationError(
                _("The time zone %(zone)s is not known: type the start in UTC."),
                params={"zone": name},
            ) from None
        if starts is not None:
            typed = starts.astimezone(UTC).replace(tzinfo=None)
            cleaned["starts"] = typed.replace(tzinfo=zone).astimezone(UTC)
        return cleaned


class TournamentForm(ZonedStart):
    """A new tournament's settings; its game's options are the game's own form."""

    field_order = ["name", "games", "way", "speed", "window", "starts", "open"]

    WINDOW, LIVE = "window", "live"

    name = forms.CharField(label=gettext_lazy("Name"), max_length=80)
    games = StrictIntegerField(
        label=gettext_lazy("Number of games"), min_value=1, max_value=10, initial=3
    )
    # The time of the way chosen counts (the other field is ignored); none chosen: a window.
    way = OptionalChoiceField(
        default=WINDOW,
        label=gettext_lazy("Way to play"),
        choices=[
            (WINDOW, gettext_lazy("At your own pace (each game within a window)")),
            (LIVE, gettext_lazy("Live (everybody at once, 15, 30 or 60 seconds a round)")),
        ],
        initial=WINDOW,
        widget=forms.RadioSelect,
    )
    # Sent empty: none chosen, which the service refuses for the way that needs it.
    speed = OptionalChoiceField(
        default="",
        label=gettext_lazy("Time for each round"),
        choices=[
            ("15s", gettext_lazy("15 seconds")),
            ("30s", gettext_lazy("30 seconds")),
            ("60s", gettext_lazy("60 seconds")),
        ],
        initial="30s",
    )
    window = OptionalChoiceField(
        default="",
        label=gettext_lazy("Time to play each game"),
        choices=[
            ("1h", gettext_lazy("1 hour")),
            ("12h", gettext_lazy("12 hours")),
            ("1d", gettext_lazy("1 day")),
            ("3d", gettext_lazy("3 days")),
        ],
        initial="1d",
    )
    open = forms.BooleanField(
        required=False,
        initial=True,
        label=gettext_lazy("Listed on the tournaments page (else: by invitation link only)"),
    )


class SwissForm(ZonedStart):
    """A new swiss tournament's settings (nmbrs!); its game's options are the game's form."""

    field_order = ["name", "table_size", "rounds", "pace", "starts", "open"]

    name = forms.CharField(label=gettext_lazy("Name"), max_length=80)
    table_size = forms.TypedChoiceField(
        label=gettext_lazy("Players at each table"),
        choices=[(2, "2"), (3, "3"), (4, "4")],
        coerce=int,
        initial=2,
    )
    rounds = StrictIntegerField(
        label=gettext_lazy("Number of rounds (empty: as many as the entrants need)"),
        min_value=1,
        max_value=10,
        required=False,
    )
    pace = forms.ChoiceField(
        label=gettext_lazy("Time per move"),
        # From the shortest to the longest.
        choices=[
            (
                gettext_lazy("Real time"),
                [
                    ("15s", gettext_lazy("15 seconds")),
                    ("30s", gettext_lazy("30 seconds")),
                    ("60s", gettext_lazy("60 seconds")),
                ],
            ),
            (
                gettext_lazy("Correspondence"),
                [
                    ("1h", gettext_lazy("1 hour")),
                    ("12h", gettext_lazy("12 hours")),
                    ("1d", gettext_lazy("1 day")),
                ],
            ),
        ],
        initial="1d",
    )
    open = TournamentForm.base_fields["open"]


class ReportForm(SideLabels, forms.Form):
    """A report to the staff: a reason from the list and, if the reporter wants, a note (the
    service reads both strictly again)."""

    reason = forms.ChoiceField(
        label=gettext_lazy("Why?"), choices=Report.Reason.choices, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label=gettext_lazy("Anything the staff should know (optional)"),
        required=False,
        max_length=REPORT_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class PoolForm(forms.Form):
    """What "Play now" asks: a game, a speed (the button pressed) and the number of players,
    2 when left out; whether the game is played by that many, the pools say."""

    game = forms.ChoiceField(choices=_games)
    speed = forms.ChoiceField(choices=[("15s", "15s"), ("30s", "30s"), ("60s", "60s")])
    players = OptionalChoiceField(choices=[("2", "2"), ("3", "3"), ("4", "4")], default="2")

    def clean_players(self) -> int:
        return int(self.cleaned_data["players"])
