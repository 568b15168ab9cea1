from celery import shared_task

from games import services


@shared_task(ignore_result=True)
def refresh_player_stats(player_id: int) -> None:
    services.refresh_player_stats(player_id)
