from django.core.management.base import BaseCommand, CommandError

from games.services.features import puzzles

BAR = 30


def show_progress(stdout, label: str, done: int, total: int) -> None:
    """A progress bar drawn over itself: ``label [#####.....] done/total``."""
    filled = BAR * done // total
    bar = "#" * filled + "." * (BAR - filled)
    stdout.write(f"\r{label} [{bar}] {done}/{total}", ending="")
    stdout.flush()


class Command(BaseCommand):
    help = "Make new puzzles from fresh seeds; Celery computes each one's par."

    def add_arguments(self, parser):
        parser.add_argument("count", type=int, help="how many puzzles to make")

    def handle(self, *args, count: int, **options):
        if not 1 <= count <= 10_000:
            raise CommandError("count must be between 1 and 10000")

        def progress(done: int) -> None:
            show_progress(self.stdout, "Making puzzles", done, count)

        made = puzzles.create_puzzles(count, progress=progress)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Made {len(made)} puzzles; par is on its way."))
