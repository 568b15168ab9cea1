from django.contrib import admin

from games.models import Match, Move, PlayerStats, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "players", "created", "finished")
    list_filter = ("kind", "status")
    inlines = [SeatInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("seat", "round", "number", "x", "y", "rotation", "level")


@admin.register(PlayerStats)
class PlayerStatsAdmin(admin.ModelAdmin):
    list_display = ("player", "solo_games", "solo_best", "solo_average", "updated")
