"""The columns a match, a seat, a move and a rating need to hold any game (filled by 0007)."""

from django.db import migrations, models
from django.db.models import deletion


class Migration(migrations.Migration):
    dependencies = [("games", "0005_notifications_mail_and_leases")]

    operations = [
        migrations.AddField(
            model_name="match",
            name="game",
            field=models.CharField(default="nmbr9", help_text="The game's slug.", max_length=16),
        ),
        migrations.AddField(
            model_name="match",
            name="options",
            field=models.JSONField(blank=True, default=dict, help_text="The game's options."),
        ),
        migrations.AddField(
            model_name="seat",
            name="progress",
            field=models.PositiveSmallIntegerField(
                default=0, help_text="How far the player has got, as the game counts it."
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="turn",
            field=models.PositiveIntegerField(
                blank=True,
                null=True,
                help_text="The game's number of the decision the deadline is for.",
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="strike",
            field=models.BooleanField(default=True, help_text="Missing the deadline is a strike."),
        ),
        migrations.AddField(
            model_name="seat",
            name="overdue",
            field=models.BooleanField(
                default=False, help_text="The deadline of the current decision has passed."
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="prefs",
            field=models.JSONField(
                blank=True, default=dict, help_text="The player's choices for this match."
            ),
        ),
        migrations.AddField(
            model_name="move",
            name="match",
            field=models.ForeignKey(
                null=True,
                on_delete=deletion.CASCADE,
                related_name="moves",
                to="games.match",
            ),
        ),
        migrations.AddField(
            model_name="move", name="ply", field=models.PositiveIntegerField(null=True)
        ),
        migrations.AddField(
            model_name="move",
            name="text",
            field=models.CharField(default="", max_length=200),
        ),
        migrations.AddField(
            model_name="move",
            name="auto",
            field=models.BooleanField(
                default=False, help_text="Made for the player: time ran out."
            ),
        ),
        migrations.AddField(
            model_name="rating",
            name="game",
            field=models.CharField(default="nmbr9", max_length=16),
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="game",
            field=models.CharField(default="nmbr9", max_length=16),
        ),
        migrations.RemoveConstraint(model_name="rating", name="rating_pool_unique"),
        migrations.AddConstraint(
            model_name="rating",
            constraint=models.UniqueConstraint(
                fields=("player", "game", "pool"), name="rating_game_pool_unique"
            ),
        ),
        migrations.RemoveConstraint(model_name="move", name="move_round_unique"),
        # A "leave" move has no placement; these columns go in the next migration.
        *(
            migrations.AlterField(
                model_name="move", name=name, field=models.PositiveSmallIntegerField(null=True)
            )
            for name in ("round", "number", "rotation", "level")
        ),
        *(
            migrations.AlterField(
                model_name="move", name=name, field=models.SmallIntegerField(null=True)
            )
            for name in ("x", "y")
        ),
    ]
