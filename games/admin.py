from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from games.models import Match, Move, PlayerStats, Seat


class AccountChangeForm(UserChangeForm):
    """The admin's form for an account, refusing a name or an e-mail address that another
    account has in other capitals (the database holds one of each)."""

    def _taken(self, field: str) -> bool:
        value = self.cleaned_data.get(field)
        others = User.objects.exclude(pk=self.instance.pk)
        return bool(value) and others.filter(**{f"{field}__iexact": value}).exists()

    def clean_username(self) -> str:
        if self._taken("username"):
            raise forms.ValidationError(_("A user with that username already exists."))
        return self.cleaned_data["username"]

    def clean_email(self) -> str:
        if self._taken("email"):
            raise forms.ValidationError(_("An account with this e-mail address already exists."))
        return self.cleaned_data["email"]


admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    form = AccountChangeForm


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "kind", "status", "players", "created", "finished")
    list_filter = ("game", "kind", "status")
    inlines = [SeatInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("match", "ply", "seat", "text", "auto", "created")


@admin.register(PlayerStats)
class PlayerStatsAdmin(admin.ModelAdmin):
    list_display = ("player", "solo_games", "solo_best", "solo_average", "updated")
