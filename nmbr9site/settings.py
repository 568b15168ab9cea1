"""Settings for nmbr9site, all read from the environment (see README "Configuration")."""

from pathlib import Path
from typing import Any

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from nmbr9site.env import (
    env_bool,
    env_domains,
    env_int,
    env_list,
    env_networks,
    env_str,
    env_url,
    env_vapid,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", "development-only-secret-key" if DEBUG else None)
if not DEBUG and SECRET_KEY.startswith("development-only"):
    raise ImproperlyConfigured("Set SECRET_KEY to a long random value when DEBUG is off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# The address players reach the site at, for links in e-mails (required in production).
SITE_URL = env_url(
    "SITE_URL", "http://localhost:8000" if DEBUG else "", schemes=("http", "https")
).rstrip("/")

#: The games the site hosts, in the order it lists them (the first is the default): each a
#: package holding the game's rules, web adapter, templates, static files and translations
#: (``games.registry``). Each is an installed app.
GAME_PACKAGES = ["games.web.nmbr9", "games.web.nmbrs"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "games",
    *GAME_PACKAGES,
]

MIDDLEWARE = [
    # /healthz, /readyz and /metrics, answered before anything else runs: no host check, no
    # https redirect, no session, no database unless the check asks for it.
    "games.infra.middleware.Probes",
    "games.infra.middleware.CountRequests",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "games.infra.middleware.RejectMalformedRequests",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "games.infra.middleware.UserLanguage",
    "games.infra.middleware.RecordLastSeen",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: under ASGI a middleware that can only run sync makes every one above it run in
    # the request's thread too, instead of crossing to the event loop and back at each.
    "games.infra.middleware.ShowHidden",
]

ROOT_URLCONF = "nmbr9site.urls"
WSGI_APPLICATION = "nmbr9site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.unread",
                "games.context_processors.moves",
                "games.context_processors.guest",
                "games.context_processors.game_assets",
                "games.context_processors.theme",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_url(
            "DATABASE_URL",
            f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
            schemes=("sqlite", "postgres", "postgresql", "pgsql"),
        ),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file (not memory) test database, so a Celery worker thread sees the same rows.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test-db.sqlite3")}
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
else:
    # PostgreSQL: parameters travel apart from the SQL, and a query a connection has run 5
    # times is prepared, so the server plans it once (a quarter of PostgreSQL's CPU under
    # bench.load went to planning the same few queries again).
    DATABASES["default"]["OPTIONS"] = {"server_side_binding": True, "prepare_threshold": 5}
    # The web server (ASGI) answers each request in a thread of its own, where a connection
    # kept for the next request would never be used again: it takes them from a pool of this
    # many per process instead (0: no pool; Procfile sets it for the web server).
    if pool := env_int("DATABASE_POOL", 0, minimum=0):
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {"min_size": 2, "max_size": pool, "timeout": 30}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_url("REDIS_URL", "redis://127.0.0.1:6379/0", schemes=("redis", "rediss"))
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "nmbr9site")
# Par searches, refills and player figures go to "<CELERY_QUEUE>-slow", for a worker of its own.
CELERY_TASK_ROUTES = ("games.infra.queue.route",)
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 60
CELERY_TASK_SOFT_TIME_LIMIT = 50
# The broker may go away: workers and beat reconnect for as long as it takes, and a request
# that sends a task gives up quickly (the sweep sends the work again; see games/infra/queue.py).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 3}
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BEAT_SCHEDULE = {
    # Every piece of due work (deadlines, reminders, e-mails, ratings, par, stats) is found
    # in the database and sent again; nothing waits in the broker.
    "sweep": {"task": "games.tasks.sweep", "schedule": 30.0},
    # At 00:00 UTC, and again every hour in case beat was down at midnight: publishing
    # is idempotent, so only the first run of a day does anything (/daily/ publishes too).
    "publish-daily": {"task": "games.tasks.publish_daily", "schedule": crontab(minute=0)},
    "expire-challenges": {"task": "games.tasks.expire_challenges", "schedule": crontab(minute=30)},
}

# /metrics answers these client addresses (or networks), and any request with
# "Authorization: Bearer METRICS_TOKEN"; others get 403.
METRICS_ALLOWED_IPS = env_networks("METRICS_ALLOWED_IPS", ["127.0.0.1", "::1"])
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
if METRICS_TOKEN and len(METRICS_TOKEN) < 16:
    raise ImproperlyConfigured("METRICS_TOKEN must be at least 16 characters long.")

#: The share of the full par search spent on each puzzle (1: the full, strong search).
PUZZLE_PAR_EFFORT = float(env_str("PUZZLE_PAR_EFFORT", "1"))

# When Redis cannot be reached the cache answers "nothing there" instead of failing. The rate
# limits (games/infra/limits.py) are counted in the same Redis, under KEY_PREFIX + ":limits", and
# let requests through while it is away.
CACHES: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env_str("CACHE_PREFIX", "nmbr9site"),
        "OPTIONS": {
            "IGNORE_EXCEPTIONS": True,
            "SOCKET_CONNECT_TIMEOUT": 1,
            "SOCKET_TIMEOUT": 1,
        },
    }
}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
# Sessions live in the database alone (read with plain SQL): a copy in the cache would
# outlive a logout made while Redis is away and sign the player in again.
SESSION_ENGINE = "games.infra.sessions"

AUTHENTICATION_BACKENDS = [
    "games.infra.limits.LoginLimits",  # refuses a locked-out login before any password is hashed
    "games.infra.backends.Accounts",
    "django.contrib.auth.backends.ModelBackend",  # sessions that name it stay signed in
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

if env_str("EMAIL_HOST", ""):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": env_str("EMAIL_HOST"),
                "port": env_int("EMAIL_PORT", 587, minimum=1),
                "username": env_str("EMAIL_HOST_USER", ""),
                "password": env_str("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
                "timeout": 20,
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "nmbr9site <noreply@localhost>")

# Web Push (games/infra/webpush.py): the VAPID key pair (`python manage.py vapid_keys`) and a
# contact for the push services; without them push notifications are off. A browser's push
# service is reached over https only, but for one on this machine over http where this allows
# it (development, the tests' own push service).
VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT = env_vapid()
PUSH_LOCAL_ENDPOINTS = env_bool("PUSH_LOCAL_ENDPOINTS", DEBUG)
# The push services a subscription may name (games/services/features/push_devices.py): each
# host name is the service's host or a domain its hosts are under. Those of the browsers
# (Chrome, Firefox, Edge, Safari), and any the operator adds (a browser of another maker, a
# push service of their own).
PUSH_SERVICES = [
    "fcm.googleapis.com",
    "android.googleapis.com",
    "push.services.mozilla.com",
    "notify.windows.com",
    "push.apple.com",
    *env_domains("PUSH_EXTRA_SERVICES", []),
]

# Live streams of game pages (games.infra.streams), served by processes of nmbr9site.asgi, which
# set LIVE_STREAMS for themselves; the WSGI processes behind the same proxy set it so that
# their pages name their streams (Procfile). At most LIVE_STREAMS_PER_CLIENT open per
# player or address and LIVE_STREAMS_MOST in all in one process.
LIVE_STREAMS = env_bool("LIVE_STREAMS", False)
LIVE_STREAMS_PER_CLIENT = env_int("LIVE_STREAMS_PER_CLIENT", 20, minimum=1)
LIVE_STREAMS_MOST = env_int("LIVE_STREAMS_MOST", 10000, minimum=1)

# A player gets their saved language (Settings), else their browser's, else English
# (games.infra.middleware.UserLanguage after Django's LocaleMiddleware). The catalogues in
# locale/ are compiled by the setup command (./run, with Babel).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "worker-src": [CSP.SELF],
    "manifest-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = not DEBUG
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
# Behind the proxy the client's address is the last one it added to X-Forwarded-For
# (games.infra.limits.client_ip).
BEHIND_TLS_PROXY = env_bool("BEHIND_TLS_PROXY", False)
if BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
