from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the Celery tasks in every process, so that games.infra.queue finds them by name.
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from games import tasks  # noqa: F401
        from games.infra import limits

        # Wrong passwords count towards a lockout; a successful login clears its account's.
        user_login_failed.connect(
            limits.login_failed, dispatch_uid="games.infra.limits.login_failed"
        )
        user_logged_in.connect(limits.logged_in, dispatch_uid="games.infra.limits.logged_in")

        # Every hosted game has a web adapter: a system check (games.E001).
        # What happens to matches reaches its subscribers (all of them listed there).
        from games.services.match import subscribers
        from games.web import registry  # noqa: F401

        subscribers.register()
