from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the Celery tasks in every process, so that games.queue finds them by name.
        from games import tasks  # noqa: F401

        # Every hosted game has a web adapter: a system check (games.E001).
        from games.web import registry  # noqa: F401
