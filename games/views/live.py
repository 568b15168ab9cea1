"""A match page's live stream: Server-Sent Events announcing each new version of what its
reader sees (``games.events``), served by the ASGI server from its event loop."""

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from games import events, services
from games.models import Match
from games.services import live as live_service
from games.visibility import Hidden


def streams_served(request: HttpRequest) -> bool:
    """Whether the request came through the ASGI server, which serves live streams (a WSGI
    server, which would hold a worker per open page, gives its requests ``wsgi.version``)."""
    return "wsgi.version" not in request.META


@require_GET
@never_cache
def live(request: HttpRequest, match_id: int) -> HttpResponse:
    """The stream of match ``match_id``'s page; 204 (the page polls, and tries again later)
    when nothing more can change for its reader, no stream is served here, or Redis is
    away."""
    try:
        mv = services.view_match(match_id, request.user)
    except (Match.DoesNotExist, Hidden):
        raise Http404("No game of yours has this number.") from None
    name = live_service.channel_for(mv)
    if name is None or not streams_served(request) or not events.available():
        return HttpResponse(status=204)
    shown = request.GET.get("version", "")[:64]

    def read() -> str:
        return services.version(services.view_match(match_id, request.user))

    stream = events.stream(
        name,
        read,
        shown,
        user_id=mv.seat.player_id if mv.seat is not None else None,
        match_id=mv.match.pk,
    )
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response
