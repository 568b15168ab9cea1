"""Celery tasks: small, take ids, call services, and are safe to run twice.

None of them has to arrive: ``sweep`` (every half minute, from beat) finds every piece of due
work in the database and sends it again, and each task claims its rows before acting.
"""

from celery import shared_task

from games import services
from games.infra import health, metrics, notifications, queue, webpush
from games.infra import sweep as due
from games.services.features import (
    guests,
    live_duplicate,
    puzzles,
    retention,
    swiss_rounds,
    tournaments,
)
from games.services.match import bot_moves, bot_seats

#: Seats per task sent by the sweep: one transaction and one message for each batch.
SWEEP_BATCH = 100


def _batches(ids: list[int]):
    for start in range(0, len(ids), SWEEP_BATCH):
        yield ids[start : start + SWEEP_BATCH]


@shared_task(ignore_result=True)
def sweep() -> dict[str, int]:
    """Send every piece of due work: expiries, reminders, e-mails, pushes, ratings, par,
    stats, the moves bots owe, tournaments due, and guests idle long enough to be removed;
    then note that it ran (/readyz)."""
    with metrics.SWEEP_SECONDS.time():
        sent = _sweep()
    health.swept()
    return sent


def _sweep() -> dict[str, int]:
    seat_ids = due.due_seats()
    for batch in _batches(seat_ids):
        queue.send_now(expire_seats.name, batch)
    reminders = due.due_reminders()
    for batch in _batches(reminders):
        queue.send_now(remind_seats.name, batch)
    mails = notifications.due()
    for batch in _batches(mails):
        queue.send_now(send_mails.name, batch)
    reminders_by_mail = notifications.due_entries()
    for batch in _batches(reminders_by_mail):
        queue.send_now(send_tournament_mails.name, batch)
    pushes = webpush.due()
    for batch in _batches(pushes):
        queue.send_now(send_pushes.name, batch)
    webpush.prune()
    unrated = due.unrated_matches()
    for match_id in unrated:
        queue.send_now(rate_match.name, match_id)
    attempts = due.unweighed_attempts()
    for match_id in attempts:
        queue.send_now(rate_puzzle_attempt.name, match_id)
    pars = puzzles.ask_for_par(at_once=True)
    stale = due.stale_stats()
    for player_id in stale:
        queue.send_now(refresh_player_stats.name, player_id)
    waiting_for_bots = bot_seats.due()
    for match_id in waiting_for_bots:
        queue.send_now(play_bots.name, match_id)
    idle = guests.idle()
    for batch in _batches(idle):
        queue.send_now(remove_guests.name, batch)
    tournament_work = sum(map(len, due.tournament_work().values()))
    if tournament_work:
        queue.send_now(run_tournaments.name)
    forgotten = retention.prune_notifications()
    states_dropped = retention.prune_states()
    return {
        "expiries": len(seat_ids),
        "reminders": len(reminders),
        "mails": len(mails) + len(reminders_by_mail),
        "pushes": len(pushes),
        "ratings": len(unrated),
        "puzzle_ratings": len(attempts),
        "par": pars,
        "stats": len(stale),
        "bots": len(waiting_for_bots),
        "idle_guests": len(idle),
        "notifications_removed": forgotten,
        "states_dropped": states_dropped,
        "tournaments": tournament_work,
    }


@shared_task(ignore_result=True, time_limit=300, soft_time_limit=280)
def run_tournaments() -> None:
    """Start, close and finish the tournaments that are due, pair the swiss rounds due (the
    sweep sends it)."""
    tournaments.run_due()
    swiss_rounds.run_due()
    live_duplicate.run_due()


@shared_task(ignore_result=True)
def run_live() -> None:
    """Start the live duplicates due and close their rounds whose time is up (the clock
    sends it to the fast workers)."""
    live_duplicate.run_due()


@shared_task(ignore_result=True)
def run_live_swiss() -> None:
    """Start the real-time swiss tournaments due and pair their rounds left unpaired (the
    clock sends it to the fast workers)."""
    swiss_rounds.run_live()


@shared_task(ignore_result=True)
def expire_seats(seat_ids: list[int]) -> None:
    services.expire_many(seat_ids)


@shared_task(ignore_result=True)
def remind_seats(seat_ids: list[int]) -> None:
    for seat_id in seat_ids:
        services.remind(seat_id)


@shared_task(ignore_result=True)
def send_mails(seat_ids: list[int]) -> None:
    notifications.send_many(seat_ids)


@shared_task(ignore_result=True)
def send_tournament_mails(entry_ids: list[int]) -> None:
    notifications.send_reminders(entry_ids)


@shared_task(ignore_result=True)
def send_pushes(message_ids: list[int]) -> None:
    webpush.send_many(message_ids)


@shared_task(ignore_result=True)
def send_password_reset(email: str, language: str = "") -> None:
    notifications.send_password_reset(email, language)


@shared_task(ignore_result=True)
def remove_guests(player_ids: list[int]) -> None:
    guests.remove_idle(player_ids)


@shared_task(ignore_result=True)
def refresh_player_stats(player_id: int) -> None:
    services.refresh_player_stats(player_id)


@shared_task(ignore_result=True, time_limit=600, soft_time_limit=580)
def play_bots(match_id: int) -> None:
    bot_moves.play_bots(match_id)


@shared_task(ignore_result=True)
def rate_match(match_id: int) -> None:
    services.rate_match(match_id)


@shared_task(ignore_result=True)
def rate_puzzle_attempt(match_id: int) -> None:
    services.rate_puzzle_attempt(match_id)


@shared_task(ignore_result=True, time_limit=300, soft_time_limit=280)
def compute_par(puzzle_id: int, token: str | None = None) -> None:
    puzzles.compute_par(puzzle_id, token=token)
    puzzles.ask_for_par(at_once=True)  # the next search, so the slow worker never idles


@shared_task(ignore_result=True)
def refill_puzzles() -> None:
    puzzles.refill_puzzles()


@shared_task(ignore_result=True)
def publish_daily() -> None:
    """Hourly: the day's puzzle, and new puzzles if the stock ran low since."""
    puzzles.publish_daily()
    puzzles.refill_puzzles()


@shared_task(ignore_result=True)
def expire_challenges() -> None:
    puzzles.expire_challenges()


@shared_task(ignore_result=True)
def send_address_mail(user_id: int, language: str = "") -> None:
    notifications.send_address_mail(user_id, language)


@shared_task(ignore_result=True)
def send_address_changed(user_id: int, old: str, language: str = "") -> None:
    notifications.send_address_changed(user_id, old, language)
