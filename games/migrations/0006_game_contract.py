"""Matches become a game with options, moves become texts in the game's notation.

Every existing match is an NMBR 9 game: its pace and card removal move into its options
(puzzles and challenges get the "puzzle" option, under which the game itself lays the start
tile), each stored placement becomes the move ``place N@X,YrR`` in the order it was made, a
player who resigned or was dropped gets the move ``leave`` where it happened, and the puzzle
start tiles that were stored as moves are left to the game. Ratings are NMBR 9 ratings.
"""

from django.db import migrations, models
from django.db.models import deletion


def to_texts(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    Seat = apps.get_model("games", "Seat")
    Move = apps.get_model("games", "Move")
    for match in Match.objects.order_by("id").iterator():
        puzzle = match.puzzle_id is not None
        options = {"pace": "free" if puzzle else match.pace, "removed": match.removed}
        if puzzle:
            options["puzzle"] = True
        match.options = options
        match.save(update_fields=["options"])
        seats = list(Seat.objects.filter(match=match).order_by("index"))
        moves = list(Move.objects.filter(seat__match=match).order_by("id"))
        leaves = sorted(
            (seat.left_after, seat.index, seat) for seat in seats if seat.left_after is not None
        )
        ordered = []
        for position, move in enumerate(moves):
            while leaves and leaves[0][0] <= position:
                ordered.append(leaves.pop(0)[2])
            ordered.append(move)
        ordered += [seat for _, _, seat in leaves]
        starts = [m for m in ordered if isinstance(m, Move) and puzzle and m.round == 1]
        Move.objects.filter(pk__in=[m.pk for m in starts]).delete()
        kept, new = [], []
        turns = {seat.pk: int(puzzle) for seat in seats}
        for ply, entry in enumerate(e for e in ordered if e not in starts):
            if isinstance(entry, Move):
                entry.match_id = match.pk
                entry.ply = ply
                entry.text = f"place {entry.number}@{entry.x},{entry.y}r{entry.rotation}"
                kept.append(entry)
                turns[entry.seat_id] += 1
            else:
                new.append(Move(match_id=match.pk, ply=ply, seat_id=entry.pk, text="leave"))
        Move.objects.bulk_update(kept, ["match", "ply", "text"])
        Move.objects.bulk_create(new)
        for seat in seats:
            seat.progress = seat.placed
            seat.turn = turns[seat.pk] if seat.deadline is not None else None
            seat.save(update_fields=["progress", "turn"])


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
        migrations.RunPython(to_texts, migrations.RunPython.noop),
    ]
