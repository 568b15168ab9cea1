"""The deployment of deploy/: nginx with deploy/nginx/nmbr9site.conf in front of two nodes,
each running the Procfile's web and live processes, on one PostgreSQL and one Redis, with
one Celery worker."""

from __future__ import annotations

import getpass
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.urls import reverse

from nmbr9site import processes
from tests.factories import (
    Stream,
    assert_limited_by_its_own_address,
    form_for,
    make_match,
    page_version,
    play,
    seat_of,
    session_of,
)

ROOT = Path(__file__).resolve().parent.parent


def nginx_path() -> str:
    path = shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's nginx is not installed (apt-get install nginx).")
        pytest.skip("Debian's nginx is not installed (apt-get install nginx).")
    return path


def site_conf(port: int, web: list[int], live: list[int], static: Path) -> str:
    """deploy/nginx/nmbr9site.conf with this machine's ports and paths."""
    conf = (ROOT / "deploy" / "nginx" / "nmbr9site.conf").read_text()

    def upstream(name: str, ports: list[int], rest: str) -> str:
        servers = "".join(f"    server 127.0.0.1:{p};\n" for p in ports)
        return f"upstream {name} {{\n{servers}{rest}}}"

    conf, found = re.subn(
        r"upstream nmbr9site_web \{[^}]*\}", upstream("nmbr9site_web", web, ""), conf
    )
    assert found == 1
    conf, found = re.subn(
        r"upstream nmbr9site_live \{[^}]*\}",
        upstream("nmbr9site_live", live, "    keepalive 32;\n"),
        conf,
    )
    assert found == 1
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};").replace("listen [::]:80;\n", "")
    assert "/srv/nmbr9site/staticfiles/" in conf
    return conf.replace("/srv/nmbr9site/staticfiles/", f"{static}/")


def nginx_conf(directory: Path, site: Path) -> Path:
    """A whole nginx configuration of the test's own around the site's (Debian's nginx.conf
    would write to /var and run as www-data)."""
    temp = directory / "temp"
    temp.mkdir()
    user = "user root;\n" if getpass.getuser() == "root" else ""
    conf = directory / "nginx.conf"
    conf.write_text(
        f"""{user}daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    access_log {directory}/access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {site};
}}
"""
    )
    return conf


@pytest.fixture
def nodes(transactional_db, tmp_path, celery_queue):
    """Nodes A and B (their web and live processes), a Celery worker and nginx in front."""
    nginx = nginx_path()
    env = {
        "DEBUG": "1",
        "BEHIND_TLS_PROXY": "1",
        "CELERY_QUEUE": celery_queue,
        "CACHE_PREFIX": f"proxy-{uuid.uuid4().hex[:8]}",
        "WEB_CONCURRENCY": "1",
        "DATABASE_POOL": "4",
    }
    started: list[subprocess.Popen] = []
    node = {}
    try:
        for name in ("a", "b"):
            ports = processes.free_port(), processes.free_port()
            logs = tmp_path / f"{name}-web.log", tmp_path / f"{name}-live.log"
            for kind, port, log in zip((processes.WEB, processes.LIVE), ports, logs, strict=True):
                extra = ["--access-logfile", "-"]
                started.append(processes.web(kind, port, env=env, log=log, extra=extra))
                processes.wait_for_port(port, process=started[-1])
            node[name] = SimpleNamespace(
                ports=ports,
                web=f"http://127.0.0.1:{ports[0]}",
                live=f"http://127.0.0.1:{ports[1]}",
                log=logs[0],
            )
        started.append(
            processes.celery("worker", queue=celery_queue, env=env, log=tmp_path / "worker.log")
        )
        port = processes.free_port()
        site = tmp_path / "site.conf"
        web_ports, live_ports = zip(*(n.ports for n in node.values()), strict=True)
        site.write_text(site_conf(port, web_ports, live_ports, ROOT / "static"))
        conf = nginx_conf(tmp_path, site)
        check = subprocess.run([nginx, "-t", "-c", str(conf)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        started.append(
            subprocess.Popen([nginx, "-c", str(conf)], stderr=(tmp_path / "nginx.out").open("w"))
        )
        processes.wait_for_port(port)
        yield SimpleNamespace(proxy=f"http://127.0.0.1:{port}", **node)
    finally:
        for process in reversed(started):
            processes.stop(process)


def post(base: str, path: str, data: dict, session: str) -> int:
    """A form posted as a page posts it: the session's cookie and a CSRF token."""
    token = "t" * 32
    request = urllib.request.Request(
        base + path,
        data=urllib.parse.urlencode(data).encode(),
        headers={
            "Cookie": f"{settings.SESSION_COOKIE_NAME}={session}; csrftoken={token}",
            "X-CSRFToken": token,
            "HX-Request": "true",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status


def test_a_move_through_one_node_reaches_a_stream_held_by_the_other(nodes, client, alice, bob):
    match = make_match(alice, bob, pace="rounds", time_control="1d")
    play(match, alice)
    shown = page_version(client, match, alice)
    path = reverse("live", args=[match.pk]) + f"?version={shown}"
    stream = Stream(nodes.b.live, path, session_of(client, alice))
    try:
        assert stream.response.status == 200
        assert stream.events(0.3) == []
        status = post(
            nodes.a.web,
            reverse("play", args=[match.pk]),
            form_for(match, bob),
            session_of(client, bob),
        )
        # Timed from the move's answer: what node A takes to answer a request (its first, on
        # a machine busy with other tests) is no part of what reaches node B's stream.
        answered = time.monotonic()
        assert status == 200
        told = stream.first(1)
        assert time.monotonic() - answered < 1.5
        assert told == page_version(client, match, alice)
        assert seat_of(match, bob).progress == 1
    finally:
        stream.close()


def test_a_stream_through_nginx_arrives_unbuffered(nodes, client, alice, bob):
    match = make_match(alice, bob, pace="rounds", time_control="1d")
    play(match, alice)
    path = reverse("live", args=[match.pk]) + "?version=old"
    stream = Stream(nodes.proxy, path, session_of(client, alice))
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream"
        # the page is behind: told at once, while the stream goes on for minutes
        assert stream.first(2) == page_version(client, match, alice)
    finally:
        stream.close()


def test_the_site_sees_the_address_nginx_appended_whatever_the_client_wrote(nodes):
    """Guest games are counted per client address (30 an hour): a client writing a new
    X-Forwarded-For each time is still one address, the one nginx appended."""
    assert_limited_by_its_own_address(nodes.proxy)


def test_each_nodes_health_answers_through_nginx(nodes):
    for _ in range(4):  # nginx takes the nodes in turn
        with urllib.request.urlopen(f"{nodes.proxy}/healthz", timeout=5) as answer:
            assert answer.status == 200
    for node in (nodes.a, nodes.b):
        assert re.search(r'"GET /healthz HTTP/1\.[01]" 200', node.log.read_text())
    with urllib.request.urlopen(f"{nodes.proxy}/static/js/live.js", timeout=5) as answer:
        assert answer.status == 200
        assert answer.read() == (ROOT / "static" / "js" / "live.js").read_bytes()
