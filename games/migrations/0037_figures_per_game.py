from django.db import migrations, models

# Apart from 0036, which changes the table (see 0034 on PostgreSQL's pending trigger events).


def count_figures(apps, schema_editor):
    """The figures kept so far added up every game a player played: each player's are
    counted again, a row for each game they finished a match or solo game of."""
    Seat = apps.get_model("games", "Seat")
    PlayerStats = apps.get_model("games", "PlayerStats")
    PlayerStats.objects.all().delete()
    finished = Seat.objects.filter(match__status="finished", match__kind__in=["solo", "match"])
    played = finished.values_list("player_id", "match__game").order_by("player_id").distinct()
    for player_id, game in played.iterator():
        mine = finished.filter(player_id=player_id, match__game=game)
        matches = mine.filter(match__kind="match").aggregate(
            games=models.Count("id"),
            wins=models.Count("id", filter=models.Q(rank=1)),
            average=models.Avg("score"),
        )
        solo = mine.filter(match__kind="solo")
        solo_figures = solo.aggregate(
            games=models.Count("id"), best=models.Max("score"), average=models.Avg("score")
        )
        PlayerStats.objects.create(
            player_id=player_id,
            game=game,
            match_games=matches["games"],
            match_wins=matches["wins"],
            match_average=matches["average"],
            solo_games=solo_figures["games"],
            solo_best=solo_figures["best"],
            solo_average=solo_figures["average"],
            solo_best_match_id=(
                solo.order_by("-score", "match__finished", "match_id")
                .values_list("match_id", flat=True)
                .first()
            ),
        )


class Migration(migrations.Migration):
    dependencies = [("games", "0036_games_named")]

    operations = [migrations.RunPython(count_figures, migrations.RunPython.noop)]
