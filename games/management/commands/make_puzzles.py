from django.core.management.base import BaseCommand, CommandError

from games.services import puzzles

BAR = 30


class Command(BaseCommand):
    help = "Make new puzzles from fresh seeds; Celery computes each one's par."

    def add_arguments(self, parser):
        parser.add_argument("count", type=int, help="how many puzzles to make")

    def handle(self, *args, count: int, **options):
        if not 1 <= count <= 10_000:
            raise CommandError("count must be between 1 and 10000")

        def progress(done: int) -> None:
            filled = BAR * done // count
            bar = "#" * filled + "." * (BAR - filled)
            self.stdout.write(f"\rMaking puzzles [{bar}] {done}/{count}", ending="")
            self.stdout.flush()

        made = puzzles.create_puzzles(count, progress=progress)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Made {len(made)} puzzles; par is on its way."))
