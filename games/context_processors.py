from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.models import Notification


def unread(request: HttpRequest) -> dict:
    """The number of unread notifications, counted only by pages that show it."""
    if not request.user.is_authenticated:
        return {}
    user = request.user
    return {
        "unread": SimpleLazyObject(
            lambda: Notification.objects.filter(player=user, read=False).count()
        )
    }
