"""Strict readers for settings that come from environment variables.

Each helper refuses a value it cannot understand with ``ImproperlyConfigured``
instead of guessing, so a typo in production fails at start-up, not later.
"""

import base64
import ipaddress
import os
import re

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None:
        raise ImproperlyConfigured(f"The environment variable {name} is required.")
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no), not {raw!r}.")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_url(name: str, default: str, *, schemes: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    scheme, sep, rest = value.partition("://")
    if not sep or scheme not in schemes or not rest:
        expected = ", ".join(f"{s}://" for s in schemes)
        raise ImproperlyConfigured(f"{name} must be a URL starting with {expected}, not {value!r}.")
    return value


#: A host name of two labels or more (letters, digits, inner hyphens), its top one not a number.
_HOST_NAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}")


def env_domains(name: str, default: list[str]) -> list[str]:
    """A comma-separated list of host names (``push.example.org``), in lower case."""
    domains = [item.lower() for item in env_list(name, default)]
    for item in domains:
        if len(item) > 253 or not _HOST_NAME.fullmatch(item):
            raise ImproperlyConfigured(
                f"{name} must list host names (push.example.org), not {item!r}."
            )
    return domains


def env_networks(
    name: str, default: list[str]
) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """A comma-separated list of addresses or networks (``10.0.0.0/8``)."""
    networks = []
    for item in env_list(name, default):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must list IP addresses or networks, not {item!r}."
            ) from None
    return networks


def _base64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def env_vapid() -> tuple[str, str, str]:
    """VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT, the Web Push key pair and the
    contact the push services see: all three or none (push notifications are then off). The
    keys are base64url-encoded as ``manage.py vapid_keys`` prints them (the private one raw,
    the public one an uncompressed P-256 point), and must be one pair."""
    names = ("VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY", "VAPID_SUBJECT")
    public, private, subject = (os.environ.get(name, "").strip() for name in names)
    if not (public or private or subject):
        return "", "", ""
    if not (public and private and subject):
        raise ImproperlyConfigured(f"Set {', '.join(names)} together, or none of them.")
    if not subject.startswith(("mailto:", "https://")):
        raise ImproperlyConfigured(
            f"VAPID_SUBJECT must start with mailto: or https://, not {subject!r}."
        )
    try:
        raw = _base64url(private)
        if len(raw) != 32:
            raise ValueError("not 32 bytes")
        key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except ValueError:
        raise ImproperlyConfigured(
            "VAPID_PRIVATE_KEY must be a base64url-encoded P-256 private key "
            "(python manage.py vapid_keys)."
        ) from None
    derived = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    if base64.urlsafe_b64encode(derived).rstrip(b"=").decode() != public.rstrip("="):
        raise ImproperlyConfigured("VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY.")
    return public, private, subject
