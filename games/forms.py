from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from games.inputs import StrictIntegerField
from games.models import Profile


class SignupForm(UserCreationForm):
    email = forms.EmailField(help_text="Used only to reset your password.")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this e-mail address already exists.")
        return email


class PlacementForm(forms.Form):
    """Where to put the current tile: the top-left of its bounding box and a rotation."""

    x = StrictIntegerField(min_value=-99, max_value=99)
    y = StrictIntegerField(min_value=-99, max_value=99)
    rotation = StrictIntegerField(min_value=0, max_value=3)


class ConfirmForm(PlacementForm):
    round = StrictIntegerField(min_value=1, max_value=20)


def first_error(form: forms.Form) -> str:
    for field, errors in form.errors.items():
        label = "" if field == "__all__" else f"{field}: "
        return f"{label}{errors[0]}"
    return ""


def usernames(text: str) -> list[str]:
    return [name for name in text.replace(",", " ").split() if name]


class MatchForm(forms.Form):
    players = forms.TypedChoiceField(
        choices=[(n, f"{n} players") for n in range(2, 7)], coerce=int, initial=2
    )
    pace = forms.ChoiceField(
        choices=[
            ("rounds", "Rounds: everybody places each card, then the next is revealed"),
            ("free", "Free: everybody goes through the cards at their own speed"),
        ],
        initial="rounds",
        widget=forms.RadioSelect,
    )
    time_control = forms.ChoiceField(
        label="Time per move",
        choices=[
            ("1h", "1 hour"),
            ("12h", "12 hours"),
            ("1d", "1 day"),
            ("3d", "3 days"),
            ("7d", "7 days"),
        ],
        initial="1d",
    )
    rated = forms.BooleanField(required=False, initial=True, label="Rated")
    removed = forms.ChoiceField(
        label="Cards removed before the game",
        choices=[
            ("0", "None"),
            ("1", "1"),
            ("2", "2"),
            ("3", "3"),
            ("4", "4"),
            ("random", "A random number (0-4)"),
        ],
        initial="0",
    )
    invite = forms.CharField(
        required=False,
        max_length=200,
        help_text="Usernames separated by commas or spaces.",
    )
    open = forms.BooleanField(
        required=False, initial=True, label="Open the free seats in the lobby"
    )

    def clean_removed(self) -> int | str:
        value = self.cleaned_data["removed"]
        return value if value == "random" else int(value)

    def clean_invite(self) -> list[str]:
        return usernames(self.cleaned_data["invite"])


class SettingsForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["email_on_move"]


class ChallengeForm(forms.Form):
    invite = forms.CharField(
        required=False,
        max_length=200,
        help_text="Usernames separated by commas or spaces; leave empty for an open challenge.",
    )
    players = forms.TypedChoiceField(
        choices=[(n, f"{n} players") for n in range(2, 7)], coerce=int, initial=2
    )
    time_control = MatchForm.base_fields["time_control"]
    rated = forms.BooleanField(required=False, initial=True, label="Rated")
    open = forms.BooleanField(
        required=False, initial=False, label="Open the free seats in the lobby"
    )

    def clean_invite(self) -> list[str]:
        return usernames(self.cleaned_data["invite"])
