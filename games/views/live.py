"""A match page's live stream, as the WSGI server answers its address: the streams are
served from an event loop (``games.infra.streams``, under ``nmbr9site.asgi``), so this one only
tells a page whether it may see the match (404) and, if so, to poll (204)."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from games.infra.streams import channel_of


@require_GET
@never_cache
def live(request: HttpRequest, match_id: int) -> HttpResponse:
    """404 to whoever may not see match ``match_id``; 204 to others: no stream here."""
    channel_of(request.user, match_id)
    return HttpResponse(status=204)
