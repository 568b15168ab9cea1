import signal

from django.core.management.base import BaseCommand

from games.infra import clock
from games.services.features import live_duplicate, pools, swiss_rounds


class Command(BaseCommand):
    help = (
        "Run the clock: every quarter second, hand the seats whose deadline has passed to "
        "the fast Celery queue (real-time matches' deadlines within a second or two), pair "
        "the players waiting in the pools of Play now, and hand the live tournaments due to "
        "start or to move on (live duplicates, real-time swiss tournaments) to the fast "
        "queue. One or more may run; Ctrl-C or SIGTERM stops it."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--period", type=float, default=clock.PERIOD, help="seconds between two looks"
        )

    def handle(self, *args, period: float, **options):
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
        self.stdout.write(f"The clock looks for due seats every {period} s.")
        ticks = (
            pools.drop_stale,
            pools.pair,
            clock.Ticker("games.tasks.run_live", live_duplicate.work_due),
            clock.Ticker("games.tasks.run_live_swiss", swiss_rounds.due_live),
        )
        clock.run(lambda: bool(stopping), period, ticks=ticks)
