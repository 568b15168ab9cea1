from django.conf import settings
from django.db import migrations, models

import games.registry

# A game is a package of its own (settings.GAME_PACKAGES): a column's default game is the
# first of the setting's (default_game) rather than a name, puzzles keep their game and a
# profile's figures are kept per game. Every puzzle there is today is NMBR 9's, the one game
# with puzzles; the figures are counted per game in 0037.


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0035_sessions_backend_moved"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="puzzle",
            name="game",
            field=models.CharField(default="nmbr9", help_text="The game's slug.", max_length=16),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="puzzle",
            name="game",
            field=models.CharField(
                default=games.registry.puzzle_game,
                help_text="The game's slug (the site's puzzle game).",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="game",
            field=models.CharField(default="nmbr9", max_length=16),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="playerstats",
            name="player",
            field=models.ForeignKey(
                on_delete=models.deletion.CASCADE,
                related_name="stats",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="playerstats",
            constraint=models.UniqueConstraint(
                fields=("player", "game"), name="player_stats_per_game"
            ),
        ),
        migrations.AlterField(
            model_name="match",
            name="game",
            field=models.CharField(
                default=games.registry.default_game, help_text="The game's slug.", max_length=16
            ),
        ),
        migrations.AlterField(
            model_name="rating",
            name="game",
            field=models.CharField(default=games.registry.default_game, max_length=16),
        ),
        migrations.AlterField(
            model_name="ratingchange",
            name="game",
            field=models.CharField(default=games.registry.default_game, max_length=16),
        ),
    ]
