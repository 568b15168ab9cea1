from django.db import migrations, models


def owe_nothing_when_over(apps, schema_editor):
    """Seats of matches over keep no decision nor reminder time: the new indexes of what is
    owed leave them out, as finishing now does."""
    Seat = apps.get_model("games", "Seat")
    Seat.objects.filter(match__status__in=["finished", "cancelled"]).exclude(
        turn=None, remind_at=None
    ).update(turn=None, remind_at=None)


class Migration(migrations.Migration):
    dependencies = [("games", "0027_follow_notices")]

    operations = [
        migrations.RunPython(owe_nothing_when_over, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("rated", True), ("rated_at", None), ("status", "finished")),
                fields=["finished"],
                name="unrated_matches",
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(
                    ("kind", "puzzle"), ("puzzle_rated_at", None), ("status", "finished")
                ),
                fields=["finished", "id"],
                name="unweighed_attempts",
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("kind", "solo"), ("status", "finished")),
                fields=["finished"],
                name="finished_solo_games",
            ),
        ),
        migrations.AddIndex(
            model_name="notification",
            index=models.Index(
                condition=models.Q(("read", True)), fields=["created"], name="read_notices"
            ),
        ),
        migrations.AddIndex(
            model_name="notification",
            index=models.Index(fields=["created"], name="notices_by_age"),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(
                    ("deadline__isnull", False), ("turn__isnull", False), _connector="OR"
                ),
                fields=["player"],
                name="seats_owing",
            ),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("deadline__isnull", False), ("reminded", False)),
                fields=["remind_at"],
                name="reminders_due",
            ),
        ),
    ]
