from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User


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

    x = forms.IntegerField(min_value=-99, max_value=99)
    y = forms.IntegerField(min_value=-99, max_value=99)
    rotation = forms.IntegerField(min_value=0, max_value=3)


class ConfirmForm(PlacementForm):
    round = forms.IntegerField(min_value=1, max_value=20)


def first_error(form: forms.Form) -> str:
    for field, errors in form.errors.items():
        label = "" if field == "__all__" else f"{field}: "
        return f"{label}{errors[0]}"
    return ""
