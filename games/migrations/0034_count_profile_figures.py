from django.db import migrations, models

# Apart from 0032, which adds the columns and their indexes: on PostgreSQL the rows written
# here leave foreign-key checks pending until the transaction ends, and an index cannot be
# created in a transaction with pending checks ("pending trigger events").


def count_figures(apps, schema_editor):
    """Each player with a finished match or solo game gets the figures their profile reads."""
    Seat = apps.get_model("games", "Seat")
    PlayerStats = apps.get_model("games", "PlayerStats")
    finished = Seat.objects.filter(match__status="finished")
    players = finished.filter(match__kind__in=["solo", "match"]).values_list("player_id", flat=True)
    for player_id in players.order_by("player_id").distinct().iterator():
        mine = finished.filter(player_id=player_id)
        matches = mine.filter(match__kind="match").aggregate(
            games=models.Count("id"),
            wins=models.Count("id", filter=models.Q(rank=1)),
            average=models.Avg("score"),
        )
        solo = mine.filter(match__kind="solo")
        solo_figures = solo.aggregate(
            games=models.Count("id"), best=models.Max("score"), average=models.Avg("score")
        )
        PlayerStats.objects.update_or_create(
            player_id=player_id,
            defaults={
                "match_games": matches["games"],
                "match_wins": matches["wins"],
                "match_average": matches["average"],
                "solo_games": solo_figures["games"],
                "solo_best": solo_figures["best"],
                "solo_average": solo_figures["average"],
                "solo_best_match_id": (
                    solo.order_by("-score", "match__finished", "match_id")
                    .values_list("match_id", flat=True)
                    .first()
                ),
            },
        )


class Migration(migrations.Migration):
    dependencies = [("games", "0033_rating_board")]

    operations = [migrations.RunPython(count_figures, migrations.RunPython.noop)]
