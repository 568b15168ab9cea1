"""The columns a match, a seat and a move had before they held a game's options and texts."""

from django.db import migrations, models
from django.db.models import deletion


class Migration(migrations.Migration):
    dependencies = [("games", "0007_game_contract_data")]

    operations = [
        migrations.RemoveField(model_name="move", name="round"),
        migrations.RemoveField(model_name="move", name="number"),
        migrations.RemoveField(model_name="move", name="x"),
        migrations.RemoveField(model_name="move", name="y"),
        migrations.RemoveField(model_name="move", name="rotation"),
        migrations.RemoveField(model_name="move", name="level"),
        migrations.AlterField(
            model_name="move",
            name="match",
            field=models.ForeignKey(
                on_delete=deletion.CASCADE, related_name="moves", to="games.match"
            ),
        ),
        migrations.AlterField(model_name="move", name="ply", field=models.PositiveIntegerField()),
        migrations.AlterField(
            model_name="move", name="text", field=models.CharField(max_length=200)
        ),
        migrations.AlterModelOptions(name="move", options={"ordering": ["match_id", "ply"]}),
        migrations.AddConstraint(
            model_name="move",
            constraint=models.UniqueConstraint(fields=("match", "ply"), name="move_ply_unique"),
        ),
        migrations.RemoveField(model_name="match", name="pace"),
        migrations.RemoveField(model_name="match", name="removed"),
        migrations.RemoveField(model_name="seat", name="placed"),
        migrations.RemoveField(model_name="seat", name="left_after"),
        migrations.AlterField(
            model_name="puzzle",
            name="start",
            field=models.CharField(
                help_text="What lies on the display at the start.", max_length=16
            ),
        ),
    ]
