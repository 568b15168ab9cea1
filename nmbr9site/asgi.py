"""The site's ASGI application: the live streams of game pages from the event loop
(``games.infra.streams``, no thread per open stream), and every other address through Django's
WSGI handler (asgiref's ``WsgiToAsgi``), one request at a time in the process's thread.

Production runs it as the ``live`` process behind the proxy, which sends it the streams'
addresses alone; the pages go to the sync ``web`` processes (Procfile). ``./run start`` runs
it alone for everything.
"""

import asyncio
import contextvars
import os
import warnings

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
os.environ.setdefault("LIVE_STREAMS", "1")
django.setup(set_prefix=False)

from asgiref.wsgi import WsgiToAsgi  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

from games.infra import streams  # noqa: E402

# WhiteNoise answers a static file with a file iterator, which Django reads in a thread under
# ASGI and warns about at each file.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)
django_pages = get_wsgi_application()


def closed_after(environ, start_response):
    """Django's WSGI application, whose answer is closed once sent, as a WSGI server closes
    it (``WsgiToAsgi`` does not): that ends the request (``request_finished``), giving back
    its database connection and the file a static file's answer opened."""
    answer = django_pages(environ, start_response)
    try:
        yield from answer
    finally:
        answer.close()


pages = WsgiToAsgi(closed_after)


async def application(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] == "http" and (match_id := streams.match_of(scope["path"])) is not None:
        await streams.app(scope, receive, send, match_id)
    else:
        # A page runs in a context of its own: the next request on a kept connection may be
        # started from inside the answer before, whose context names the thread that answer
        # ran in (asgiref's AsyncToSync), gone once it is sent.
        await asyncio.create_task(pages(scope, receive, send), context=contextvars.Context())
