from django.core.management.base import BaseCommand, CommandError

from games.services.features import puzzles

from .make_puzzles import show_progress


class Command(BaseCommand):
    help = "Search the par of every existing puzzle again and store it, with a progress bar."

    def add_arguments(self, parser):
        parser.add_argument(
            "--effort",
            type=float,
            default=None,
            help="share of the full search, more than 0 and at most 1 (default: the setting)",
        )

    def handle(self, *args, effort: float | None, **options):
        if effort is not None and not 0 < effort <= 1:
            raise CommandError("effort must be more than 0 and at most 1")

        def progress(done: int, total: int) -> None:
            show_progress(self.stdout, "Searching par", done, total)

        changed = puzzles.recompute_par(effort=effort, progress=progress)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Par searched again; {changed} changed."))
