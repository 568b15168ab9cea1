"""Celery tasks: small, take ids, call services, and are safe to run twice."""

from celery import shared_task

from games import notifications, services


@shared_task(ignore_result=True)
def refresh_player_stats(player_id: int) -> None:
    services.refresh_player_stats(player_id)


@shared_task(ignore_result=True)
def expire_seat(seat_id: int) -> None:
    services.expire(seat_id)


@shared_task(ignore_result=True)
def expire_seats(seat_ids: list[int]) -> None:
    services.expire_many(seat_ids)


#: Due seats per task sent by the sweep: one transaction and one message for each batch.
SWEEP_BATCH = 100


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    """Every minute: expire every due seat whose scheduled task was lost or late, and send
    the reminders of seats with 80% of their time used."""
    seat_ids = services.due_seats()
    for start in range(0, len(seat_ids), SWEEP_BATCH):
        expire_seats.delay(seat_ids[start : start + SWEEP_BATCH])
    for seat_id in services.due_reminders():
        remind_seat.delay(seat_id)
    return len(seat_ids)


@shared_task(ignore_result=True)
def remind_seat(seat_id: int) -> None:
    if services.remind(seat_id):
        notifications.send_reminder(seat_id)


@shared_task(ignore_result=True)
def send_move_email(seat_id: int) -> None:
    notifications.send_your_move(seat_id)


@shared_task(ignore_result=True)
def rate_match(match_id: int) -> None:
    services.rate_match(match_id)


@shared_task(ignore_result=True, time_limit=300, soft_time_limit=280)
def compute_par(puzzle_id: int) -> None:
    from games import puzzles

    puzzles.compute_par(puzzle_id)


@shared_task(ignore_result=True)
def make_puzzles(count: int) -> None:
    from games import puzzles

    puzzles.create_puzzles(count)


@shared_task(ignore_result=True)
def publish_daily() -> None:
    from games import puzzles

    puzzles.publish_daily()


@shared_task(ignore_result=True)
def expire_challenges() -> None:
    from games import puzzles

    puzzles.expire_challenges()
