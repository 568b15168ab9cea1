from django.http import HttpRequest

from games.models import Notification


def unread(request: HttpRequest) -> dict:
    if not request.user.is_authenticated:
        return {}
    return {"unread": Notification.objects.filter(player=request.user, read=False).count()}
