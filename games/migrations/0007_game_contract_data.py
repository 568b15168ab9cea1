"""Matches become a game with options, moves become texts in the game's notation.

Every existing match is an NMBR 9 game: its pace and card removal move into its options
(puzzles and challenges get the "puzzle" option, under which the game itself lays the start
tile), each stored placement becomes the move ``place N@X,YrR`` in the order it was made, a
player who resigned or was dropped gets the move ``leave`` where it happened, and the puzzle
start tiles that were stored as moves are left to the game. Ratings are NMBR 9 ratings.
"""

from django.db import migrations


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
    dependencies = [("games", "0006_game_contract")]

    operations = [migrations.RunPython(to_texts, migrations.RunPython.noop)]
