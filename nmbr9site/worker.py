"""gunicorn's worker for ``nmbr9site.asgi``: uvicorn, which must not take the client's
address from X-Forwarded-For itself (its default for connections from 127.0.0.1, where the
proxy and anybody on the machine connect from). The site alone decides the client's address
(``BEHIND_TLS_PROXY``, ``games.infra.limits.client_ip``).

Each open stream holds a connection, a file: the worker raises its own limit of open files
to the most the system allows it (``games.infra.streams`` refuses streams before reaching it).
"""

import contextlib
import resource

from uvicorn_worker import UvicornWorker


def most_open_files() -> int:
    """Raise this process's limit of open files to its hard limit; the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):  # not allowed here: keep the limit
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Worker(UvicornWorker):
    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "proxy_headers": False}

    def init_process(self) -> None:
        most_open_files()
        super().init_process()
