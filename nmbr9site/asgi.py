"""The site's ASGI application, served by uvicorn (under gunicorn in production, Procfile):
its pages, each answered in a thread of its own, and the live streams of game pages, held
in the event loop (``games.events``) so that an open page holds no thread."""

import os
import warnings

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
# WhiteNoise answers a static file with a file iterator, which Django reads in a thread under
# ASGI and warns about at each file.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)
application = get_asgi_application()
