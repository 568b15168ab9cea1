"""The admin: accounts, matches and moves, tournaments (featured by the staff), and the
staff's work on chats (the queue of reports, messages, bans from writing). Only staff reach
it (Django's admin), each model as their permissions allow; closing an account also needs the
right to change accounts."""

from django import forms
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import User
from django.db.models import F
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.http import AccountRequest
from games.models import (
    ChatBan,
    ChatMessage,
    Entry,
    Match,
    Move,
    PlayerStats,
    Report,
    Seat,
    Tournament,
)
from games.names import shown
from games.services.features import closing, reports


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


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ("player", "rank", "played", "score", "percent", "withdrawn")
    readonly_fields = fields


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """The staff feature a tournament (listed first), have it repeat (the next one is created
    when it starts) or change its start before it begins; its games and standings are the
    site's to change."""

    list_display = (
        "id",
        "name",
        "game",
        "format",
        "status",
        "starts",
        "open",
        "featured",
        "repeat",
    )
    list_filter = ("status", "featured", "open", "repeat")
    list_editable = ("featured",)
    fields = (
        "name",
        "featured",
        "repeat",
        "previous",
        "open",
        "starts",
        "status",
        "games",
        "window",
        "table_size",
        "time_per_move",
        "created_by",
    )
    readonly_fields = (
        "status",
        "games",
        "window",
        "table_size",
        "time_per_move",
        "created_by",
        "previous",
    )
    inlines = [EntryInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("match", "ply", "seat", "text", "auto", "created")


@admin.register(PlayerStats)
class PlayerStatsAdmin(admin.ModelAdmin):
    list_display = ("player", "solo_games", "solo_best", "solo_average", "updated")


# ------------------------------------------------------------------ chats and reports

BOTH = [admin.ActionLocation.CHANGE_LIST, admin.ActionLocation.CHANGE_FORM]


def _in_context(message: ChatMessage | None) -> str:
    """The message among the ``reports.AROUND`` before and after it in its room, itself
    marked (a removed message's text is kept for the staff); every text escaped."""
    if message is None:
        return "–"
    line = '<span title="{}">{}</span> · {}: {}'
    rows = format_html_join(
        "",
        "<li>{}</li>",
        (
            (
                format_html(
                    "<mark data-reported>" + line + "</mark>" if m.pk == message.pk else line,
                    m.created.isoformat(),
                    m.created.strftime("%Y-%m-%d %H:%M"),
                    shown(m.author.username),
                    _("[removed] %(text)s") % {"text": m.text} if m.removed else m.text,
                ),
            )
            for m in reports.context(message)
        ),
    )
    url = reverse("admin:games_chatmessage_change", args=[message.pk])
    return format_html(
        '<p><a href="{}">{}</a> · {} · {}</p><ol class="chat-context">{}</ol>',
        url,
        _("Message %(number)s") % {"number": message.pk},
        message.match or message.tournament,
        ChatMessage.Room(message.room).label,
        rows,
    )


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """The queue of reports: those not yet handled first, each message in its context, and
    what the staff may do about them (on the list and on each report's page)."""

    list_display = ("created", "reported", "reason", "excerpt", "reporter", "handled_at", "outcome")
    list_filter = (("handled_at", admin.EmptyFieldListFilter), "reason", "outcome")
    list_select_related = ("reported", "reporter", "message")
    ordering = (F("handled_at").asc(nulls_first=True), "-created", "-id")
    fields = (
        "reported",
        "reporter",
        "reason",
        "text",
        "created",
        "in_context",
        "handled_by",
        "handled_at",
        "outcome",
    )
    readonly_fields = fields
    actions = [
        "remove_messages",
        "ban_for_a_day",
        "ban_for_a_week",
        "close_accounts",
        "mark_handled",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players make reports

    def has_close_permission(self, request: HttpRequest) -> bool:
        """Closing an account also needs the right to change accounts."""
        return self.has_change_permission(request) and request.user.has_perm("auth.change_user")

    @admin.display(description=gettext_lazy("Message"))
    def excerpt(self, report: Report) -> str:
        return Truncator(report.message.text).chars(60) if report.message else "–"

    @admin.display(description=gettext_lazy("The message in its context"))
    def in_context(self, report: Report) -> str:
        return _in_context(report.message)

    @admin.action(
        description=gettext_lazy("Remove the reported messages"),
        permissions=["change"],
        location=BOTH,
    )
    def remove_messages(self, request: AccountRequest, queryset) -> None:
        done = 0
        for report in queryset.select_related("message__match"):
            if report.message is not None:
                reports.remove(report.message, request.user)
                done += 1
        self.message_user(
            request,
            ngettext("%(count)s message removed.", "%(count)s messages removed.", done)
            % {"count": done},
        )

    def _ban(self, request: AccountRequest, queryset, days: int) -> None:
        players = {}
        for report in queryset.select_related("reported"):
            players[report.reported_id] = report.reported
            reports.handle(report, request.user, Report.Outcome.BANNED)
        for player in players.values():
            reports.ban(player, days, request.user)
        self.message_user(
            request,
            ngettext(
                "%(count)s player muted in chats.",
                "%(count)s players muted in chats.",
                len(players),
            )
            % {"count": len(players)},
        )

    @admin.action(
        description=gettext_lazy("Mute the reported players' chat for 1 day"),
        permissions=["change"],
        location=BOTH,
    )
    def ban_for_a_day(self, request: AccountRequest, queryset) -> None:
        self._ban(request, queryset, 1)

    @admin.action(
        description=gettext_lazy("Mute the reported players' chat for 7 days"),
        permissions=["change"],
        location=BOTH,
    )
    def ban_for_a_week(self, request: AccountRequest, queryset) -> None:
        self._ban(request, queryset, 7)

    @admin.action(
        description=gettext_lazy("Close the reported players' accounts…"),
        permissions=["close"],
        location=BOTH,
    )
    def close_accounts(self, request: AccountRequest, queryset):
        """Asks first (a page listing the accounts); closes them once confirmed."""
        queryset = queryset.select_related("reported")
        players = {report.reported_id: report.reported for report in queryset}
        if request.POST.get("confirm") != "yes":
            context = {
                **self.admin_site.each_context(request),
                "title": _("Close these accounts?"),
                "opts": self.opts,
                "reports": queryset,
                "players": players.values(),
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/games/report/close_accounts.html", context)
        for player in players.values():
            closing.close(player)
        for report in queryset:
            reports.handle(report, request.user, Report.Outcome.CLOSED)
        self.message_user(
            request,
            ngettext("%(count)s account closed.", "%(count)s accounts closed.", len(players))
            % {"count": len(players)},
        )
        return None

    @admin.action(
        description=gettext_lazy("Mark handled: nothing to do"),
        permissions=["change"],
        location=BOTH,
    )
    def mark_handled(self, request: AccountRequest, queryset) -> None:
        for report in queryset.filter(handled_at__isnull=True):
            reports.handle(report, request.user, Report.Outcome.NOTHING)


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("created", "match", "tournament", "room", "author", "text", "removed")
    list_filter = ("room", ("removed", admin.EmptyFieldListFilter))
    list_select_related = ("match", "tournament", "author")
    search_fields = ("text", "author__username")
    fields = (
        "match",
        "tournament",
        "room",
        "author",
        "text",
        "created",
        "removed",
        "removed_by",
        "in_context",
    )
    readonly_fields = fields
    actions = ["remove_messages"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players write them

    @admin.display(description=gettext_lazy("In its context"))
    def in_context(self, message: ChatMessage) -> str:
        return _in_context(message)

    @admin.action(
        description=gettext_lazy("Remove the selected messages"),
        permissions=["change"],
        location=BOTH,
    )
    def remove_messages(self, request: AccountRequest, queryset) -> None:
        for message in queryset.select_related("match"):
            reports.remove(message, request.user)


@admin.register(ChatBan)
class ChatBanAdmin(admin.ModelAdmin):
    """Who may not write in chats until when (made from the reports, or here)."""

    list_display = ("player", "until", "by", "created")
    raw_id_fields = ("player",)
    fields = ("player", "until", "by", "created")
    readonly_fields = ("by", "created")

    def save_model(self, request: HttpRequest, obj: ChatBan, form, change: bool) -> None:
        if obj.by_id is None and request.user.is_authenticated:
            obj.by = request.user
        super().save_model(request, obj, form, change)
