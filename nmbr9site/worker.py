"""gunicorn's worker for ``nmbr9site.asgi``: uvicorn, which must not take the client's
address from X-Forwarded-For itself (its default for connections from 127.0.0.1, where the
proxy and anybody on the machine connect from). The site alone decides the client's address
(``BEHIND_TLS_PROXY``, ``games.limits.client_ip``)."""

from uvicorn_worker import UvicornWorker


class Worker(UvicornWorker):
    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "proxy_headers": False}
