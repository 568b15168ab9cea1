"""A push service of the tests' own (RFC 8030), on 127.0.0.1 at a random port.

A test makes its devices here (``PushService.device``): each has a P-256 key pair and a
16-byte auth secret made by the test, as a browser's would be, and an endpoint on this
service. Every push posted is checked as a push service checks it: its VAPID authorization
(RFC 8292: ``vapid t=<JWT>, k=<public key>``, the JWT signed ES256 by that key, which must be
the key the device subscribed with, for this service's origin, expiring in the next 24 hours,
with a subject), its TTL and its Content-Encoding (aes128gcm); then its body is decrypted
with the device's keys (RFC 8291) and the JSON in it kept for the device. A push failing a
check is answered 400 or 403 and noted in ``problems`` (a test expects none). An endpoint can
be told to answer 410 (the device is gone) or 500 (the service is in trouble) instead.

The service is known by the name in a request's Host header, as a push service behind a name
is: a device made for another name of this machine (``device(host="localhost")``) gets the
pushes posted to that name, whatever address the site connected to. Given a TLS context
(``certificate``), the service speaks https, and notes the name each connection asked for
(SNI) in ``names``.
"""

from __future__ import annotations

import base64
import datetime
import json
import secrets
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import http_ece
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID


def b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


@dataclass
class Device:
    """A browser's subscription: where its pushes go, and the keys that read them."""

    endpoint: str
    server_key: str  # the applicationServerKey it subscribed with (the site's public key)
    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: secrets.token_bytes(16))

    def subscription(self) -> dict:
        """What ``PushSubscription.toJSON()`` gives in a browser."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {
                "p256dh": b64encode(public_bytes(self.private_key)),
                "auth": b64encode(self.auth),
            },
        }

    def json(self) -> str:
        return json.dumps(self.subscription())


def certificate(name: str, directory: Path) -> tuple[ssl.SSLContext, Path]:
    """A TLS context serving a certificate for ``name`` (made here, valid for a day), and
    the file of that certificate, for a client to trust."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    made = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert, private = directory / f"{name}.pem", directory / f"{name}.key"
    cert.write_bytes(made.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, private)
    return context, cert


class PushService:
    def __init__(self, server_key: str, tls: ssl.SSLContext | None = None) -> None:
        self.server_key = server_key
        self.names: list[str | None] = []
        self.devices: dict[str, Device] = {}
        self.received: dict[str, list[dict]] = {}
        self.answers: dict[str, int] = {}
        self.posts: dict[str, int] = {}
        self.problems: list[str] = []
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                service.take(self)

            def log_message(self, format, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.scheme = "https" if tls else "http"
        if tls:
            tls.sni_callback = lambda _socket, name, _context: self.names.append(name)
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.url = f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def device(self, host: str = "127.0.0.1") -> Device:
        """A new subscription with this service (reached by the name ``host``), to the site's
        key."""
        url = self.url.replace("127.0.0.1", host, 1)
        made = Device(f"{url}/push/{secrets.token_urlsafe(16)}", self.server_key)
        self.devices[made.endpoint] = made
        return made

    def pushes(self, device: Device) -> list[dict]:
        """The payloads ``device`` received, in order."""
        with self.lock:
            return list(self.received.get(device.endpoint, []))

    def tried(self, device: Device) -> int:
        """How many pushes were posted for ``device``, taken or not."""
        with self.lock:
            return self.posts.get(device.endpoint, 0)

    def wait_for(self, device: Device, count: int, timeout: float = 15.0) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.pushes(device)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"{device.endpoint} got {self.pushes(device)}, not {count} pushes")

    # ------------------------------------------------------------------ a push arrives

    def take(self, request: BaseHTTPRequestHandler) -> None:
        origin = f"{self.scheme}://{request.headers.get('Host', '')}"
        endpoint = origin + request.path
        body = request.rfile.read(int(request.headers.get("Content-Length") or 0))
        with self.lock:
            self.posts[endpoint] = self.posts.get(endpoint, 0) + 1
        device = self.devices.get(endpoint)
        status = self.answers.get(endpoint)
        if device is None:
            status = 404
        elif status is None:
            problem, status = self.check(device, origin, request.headers, body)
            if problem:
                with self.lock:
                    self.problems.append(f"{endpoint}: {problem}")
        request.send_response(status)
        if status == 201:
            request.send_header("Location", f"{self.url}/message/{secrets.token_urlsafe(8)}")
        request.send_header("Content-Length", "0")
        request.end_headers()

    def check(self, device: Device, origin: str, headers, body: bytes) -> tuple[str, int]:
        """What is wrong with the push (and the status answered), or "" and 201."""
        problem = self.authorization(headers.get("Authorization", ""), origin)
        if problem:
            return problem, 403
        if not (headers.get("TTL") or "").isdigit():
            return f"TTL is {headers.get('TTL')!r}", 400
        if headers.get("Content-Encoding") != "aes128gcm":
            return f"Content-Encoding is {headers.get('Content-Encoding')!r}", 400
        try:
            plain = http_ece.decrypt(
                body, private_key=device.private_key, auth_secret=device.auth, version="aes128gcm"
            )
            payload = json.loads(plain)
        except Exception as exc:
            return f"the body could not be read: {exc!r}", 400
        with self.lock:
            self.received.setdefault(device.endpoint, []).append(payload)
        return "", 201

    def authorization(self, header: str, origin: str) -> str:
        """What is wrong with a VAPID Authorization header (RFC 8292) for a push posted to
        ``origin``, or ""."""
        scheme, _space, rest = header.partition(" ")
        if scheme.lower() != "vapid":
            return f"not a VAPID authorization: {header!r}"
        params = dict(part.strip().split("=", 1) for part in rest.split(",") if "=" in part)
        token, key = params.get("t", ""), params.get("k", "")
        if key != self.server_key:
            return f"signed with {key!r}, not the key the device subscribed with"
        try:
            head, claims, signature = token.split(".")
            raw = b64decode(signature)
            r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64decode(key))
            public.verify(
                encode_dss_signature(r, s),
                f"{head}.{claims}".encode(),
                ec.ECDSA(hashes.SHA256()),
            )
            header_fields, claims = json.loads(b64decode(head)), json.loads(b64decode(claims))
        except (ValueError, InvalidSignature) as exc:
            return f"the JWT does not verify: {exc!r}"
        if len(raw) != 64 or header_fields.get("alg") != "ES256":
            return f"not an ES256 signature: {header_fields}"
        if claims.get("aud") != origin:
            return f"aud is {claims.get('aud')!r}, not {origin!r}"
        exp = claims.get("exp")
        if not isinstance(exp, int) or not time.time() < exp <= time.time() + 24 * 3600:
            return f"exp {exp!r} is not within the next 24 hours"
        if not str(claims.get("sub", "")).startswith(("mailto:", "https://")):
            return f"sub is {claims.get('sub')!r}"
        return ""
