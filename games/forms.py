import json
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.urls import reverse_lazy
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.inputs import OptionalChoiceField
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
