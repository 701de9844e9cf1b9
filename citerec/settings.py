"""citerec settings: every knob comes from the environment (see README "Settings")."""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path

import dj_database_url
import pghistory
import pgtrigger
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from curation.ingestion.schedule import beat_schedule as ingestion_beat_schedule
from curation.limits import Limits
from curation.notices.schedule import CELERY_BEAT_SCHEDULE as NOTICES_BEAT_SCHEDULE
from curation.resolution.schedule import CELERY_BEAT_SCHEDULE as RESOLUTION_BEAT_SCHEDULE

from .caches import local_caches, redis_caches
from .embedded import embedded_database_url
from .env import env_bool, env_float, env_int, env_list, env_str
from .secret_key import choose_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("CITEREC_DATA_DIR", str(BASE_DIR / ".data")))

DEBUG = env_bool("DEBUG", default=False)

# Never a public key with DEBUG off (citerec/secret_key.py).
SECRET_KEY = choose_secret_key(
    configured=env_str("SECRET_KEY"),
    debug=DEBUG,
    embedded=not env_str("DATABASE_URL"),
    data_dir=DATA_DIR,
    allow_dev_secret=env_str("CITEREC_ALLOW_DEV_SECRET"),
)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI from pinned local files, not a CDN
    "axes",
    "pgtrigger",
    "pghistory",
    "pghistory.admin",
    "curation",
    "curation.resolution",
    "curation.notices",
    "curation.record",
    "curation.ingestion",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "citerec.csp.ContentSecurityPolicyMiddleware",  # every HTML response (citerec/csp.py)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Every admin search cut to its bounds, with a message (curation/admin/search_bounds.py)
    "curation.admin.search_bounds.AdminSearchBoundMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A statement cut by the web processes' time limit answers 503 (citerec/statement_timeout.py)
    "citerec.statement_timeout.StatementTimeoutMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "citerec.urls"
WSGI_APPLICATION = "citerec.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database: PostgreSQL only; the embedded server when DATABASE_URL is unset -------------
DATABASE_EMBEDDED = not env_str("DATABASE_URL")
DATABASE_URL = env_str("DATABASE_URL") or embedded_database_url(DATA_DIR / "pg")
# Where pg_dump and pg_restore are (backup_database, restore_database): unset, the embedded
# server's own with the embedded database, else those on PATH.
CITEREC_PG_BIN = env_str("CITEREC_PG_BIN", "")
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        # A kept connection is checked before a request or job uses it again: one the server
        # dropped while idle (restart, failover) is replaced, not handed to the job to fail.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("citerec runs on PostgreSQL only (history triggers, JSONB)")
# psycopg prepares a statement run this often on one connection. Django's cursors bind on the
# client and are never prepared; only the server-bound ones asked for are (the record version
# read, curation/record/selectors.py). Django leaves preparation off unless this is set.
DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 5
# Roles (README "Database roles"): the app connects with DATABASE_URL as the runtime role, which
# cannot rewrite history; `manage.py migrate` and `manage.py grant_runtime_role` connect with
# MIGRATION_DATABASE_URL as the schema owner. Swapping the default connection, not adding an
# alias, keeps every migration's RunPython (ours and third parties') on the owner's connection.
# Unset: one role does both (development, the embedded server).
DATABASE_RUNTIME_USER = DATABASES["default"]["USER"]
MIGRATION_DATABASE_URL = env_str("MIGRATION_DATABASE_URL")
_COMMAND = sys.argv[1] if Path(sys.argv[0]).name == "manage.py" and len(sys.argv) > 1 else ""
if MIGRATION_DATABASE_URL and _COMMAND in ("migrate", "grant_runtime_role"):
    DATABASES["default"] = dj_database_url.parse(MIGRATION_DATABASE_URL)
# PostgreSQL JIT-compiles a query whose estimated cost passes jit_above_cost. The resolver's batched
# title searches over a 3M-paper catalogue are estimated far above it: 0.9 s of compiling to run
# 0.5 s, once per chunk. Off on citerec's connections (CITEREC_DB_JIT=1 keeps the server's setting).
if not env_bool("CITEREC_DB_JIT", default=False):
    _OPTIONS = DATABASES["default"].setdefault("OPTIONS", {})
    _OPTIONS["options"] = f"{_OPTIONS.get('options', '')} -c jit=off".strip()
# A streaming replica for reads (README "Read replica and several hosts"); unset, the primary
# serves everything. Same role and options as the runtime connection, read-only.
REPLICA_DATABASE_URL = env_str("REPLICA_DATABASE_URL")
# An anonymous read (or a token client's with no recent write) uses the replica only while it
# is at most this far behind; a token client that wrote waits until the replica has replayed
# its write, for REPLICA_PIN_SECONDS after it (keep that longer than the lag bound).
REPLICA_MAX_LAG_SECONDS = env_float("REPLICA_MAX_LAG_SECONDS", 30.0)
REPLICA_PIN_SECONDS = env_int("REPLICA_PIN_SECONDS", 300)
# A replica that does not answer within the connect timeout is skipped for this long.
REPLICA_CONNECT_TIMEOUT = env_int("REPLICA_CONNECT_TIMEOUT", 2)
REPLICA_BREAKER_SECONDS = env_float("REPLICA_BREAKER_SECONDS", 10.0)
if REPLICA_DATABASE_URL:
    DATABASES["replica"] = dj_database_url.parse(
        REPLICA_DATABASE_URL,
        conn_max_age=DATABASES["default"]["CONN_MAX_AGE"],
        conn_health_checks=True,
    )
    # The primary's options (prepared statements, jit), and a write that reached the replica by
    # mistake is refused at once, not attempted.
    _PRIMARY_OPTIONS = DATABASES["default"].get("OPTIONS", {})
    DATABASES["replica"]["OPTIONS"] = {
        **_PRIMARY_OPTIONS,
        **DATABASES["replica"].get("OPTIONS", {}),
        "connect_timeout": REPLICA_CONNECT_TIMEOUT,
        "options": f"{_PRIMARY_OPTIONS.get('options', '')} -c default_transaction_read_only=on",
    }
    DATABASE_ROUTERS = ["citerec.replica.ReplicaRouter"]
    # First: the request's routing context covers every middleware's reads.
    MIDDLEWARE.insert(0, "citerec.replica.ReadRoutingMiddleware")
# Web processes only (citerec/wsgi.py adds it to the connection options): a statement running
# longer is cancelled and the request answered 503, so no request holds a web thread for minutes.
WEB_STATEMENT_TIMEOUT_MS = env_int("WEB_STATEMENT_TIMEOUT_MS", 15_000)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# One time format on every screen, the admin's own lists included ("2026-12-07 13:20 UTC").
FORMAT_MODULE_PATH = ["citerec.formats"]

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# WhiteNoise serves STATIC_ROOT after `collectstatic` (compressed), and the apps' own static
# files otherwise, so DEBUG=0 serves the admin's CSS even where nobody ran collectstatic.
WHITENOISE_USE_FINDERS = True

# An admin search (every changelist's box, autocomplete lookups) runs at most this many words
# and characters; a longer one is cut, and the curator told (curation/admin/search_bounds.py).
ADMIN_SEARCH_MAX_TERMS = env_int("ADMIN_SEARCH_MAX_TERMS", 10)
ADMIN_SEARCH_MAX_CHARS = env_int("ADMIN_SEARCH_MAX_CHARS", 300)

# --- Client addresses and admin logins --------------------------------------------------
# Proxies in front of the app that append to X-Forwarded-For; 0 ignores the header, so a client
# cannot dodge throttles or lockouts by sending a new address each time (citerec/client_ip.py).
NUM_PROXIES = env_int("NUM_PROXIES", 0)
# django-axes: wrong passwords lock an (account, address) pair, so an attacker elsewhere cannot
# lock a curator out of their own address; an address past its cap over all accounts is locked
# for every account, for longer (citerec/login_lockout.py). A lock refuses the right password too.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "citerec.login_lockout.PairAndAddressLockout"
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ADMIN_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT = env_int("ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT", 20)
ADMIN_LOGIN_ADDRESS_COOLOFF = timedelta(minutes=env_int("ADMIN_LOGIN_ADDRESS_COOLOFF_MINUTES", 60))
AXES_COOLOFF_MESSAGE = "Too many wrong passwords from this address: try again later."
AXES_CLIENT_IP_CALLABLE = "citerec.client_ip.client_address"
AXES_RESET_ON_SUCCESS = True

# --- Security: strict unless DEBUG, so `check --deploy` is clean in production ------------
_SECURE = not DEBUG
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=_SECURE)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=_SECURE)
# Admin sessions: a working day, not Django's two weeks; optionally ended with the browser.
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE_SECONDS", 12 * 3600)
SESSION_EXPIRE_AT_BROWSER_CLOSE = env_bool("SESSION_EXPIRE_AT_BROWSER_CLOSE", default=False)
# Rows stored under a keyed hash of the cookie key: reading django_session (the runtime database
# role can) gives no session to present (citerec/sessions.py).
SESSION_ENGINE = "citerec.sessions"
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=_SECURE)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if _SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=_SECURE)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=_SECURE)
if env_bool("SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"

# --- History (django-pghistory): append-only event tables --------------------------------
PGHISTORY_APPEND_ONLY = True
# Statement-level triggers attach the history context once per SQL statement; row-level ones
# attach it once per row in a subtransaction, which turns bulk writes quadratic
# (bench/bench_history_growth.py: 20,000 rows 29 s row-level, 2.4 s statement-level).
PGHISTORY_LEVEL = pgtrigger.Statement
# An event's copies of the tracked row's foreign keys (an observation event's paper, cited paper
# and work; a resolution event's observation, the same as its pgh_obj) are not indexed: history
# is read by object, context, label and time, never by a copied key, and each of those indexes
# cost an insert per event row on every resolver chunk. The object and context keys stay
# indexed (curation/history.py, PGHISTORY_CONTEXT_FIELD).
PGHISTORY_FOREIGN_KEY_FIELD = pghistory.ForeignKey(db_index=False)
PGHISTORY_CONTEXT_FIELD = pghistory.ContextForeignKey(db_index=True)

# --- REST framework: anonymous reads throttled, tokens for higher limits -----------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Tokens looked up by SHA-256 (no key stored), refused ones limited per address
        # (api/authentication.py, api/models.py)
        "api.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttles.AnonReadThrottle",
        "api.throttles.UserReadThrottle",
    ],
    "NUM_PROXIES": NUM_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_ANON_RATE", "120/min"),
        "user": env_str("API_USER_RATE", "2400/min"),
        "integrity": env_str("READER_INTEGRITY_RATE", "10/min"),
        "bad_token": env_str("API_BAD_TOKEN_RATE", "20/min"),
    },
    # The browsable API (HTML forms, a session login) only in development: production is JSON.
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        *(["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    ],
    # DRF's JSON parser, refusing JSON nested past Python's recursion limit with a 400
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.Cursor",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
# Reader pages count against the API's throttles (curation/views/throttling.py): one budget per
# client whichever URL serves the record. The integrity page, which examines every reference,
# also against a tighter one of its own (READER_INTEGRITY_RATE).
READER_THROTTLE_CLASSES = REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"]
INTEGRITY_THROTTLE_CLASSES = ["api.throttles.IntegrityThrottle"]

SPECTACULAR_SETTINGS = {
    "TITLE": "citerec API",
    "DESCRIPTION": (
        "Citation records of arXiv papers (pith.paper-citation-record.v1), their observations "
        "with evidence, cited works and change history."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "ResolutionStatusEnum": "curation.states.ResolutionStatus",
        "ResolverSourceEnum": "curation.states.ResolverSource",
        "StateEnum": "curation.states.NoticeState",
        "IngestionStateEnum": "curation.ingestion.models.IngestionState",
    },
}

# --- Cache: Redis when REDIS_URL is set, so throttles hold across processes ----------------
# "records" holds built record bytes under a key naming the record's version, which every write
# that changes the record bumps (curation/record/cache.py): the timeout only bounds memory.
_CACHE_REDIS_URL = env_str("CACHE_REDIS_URL", env_str("REDIS_URL"))
_CACHE_TIMEOUTS = {
    "default": 300,
    "records": env_int("API_RECORD_CACHE_SECONDS", 86_400),
}
# A list page of a free-text search (papers?search=) is one entry per distinct search, so it is
# kept a short while only (api/page_cache.py); Redis's maxmemory policy bounds the rest (README).
API_SEARCH_CACHE_SECONDS = env_int("API_SEARCH_CACHE_SECONDS", 600)
# Every Redis key of a deployment (cache and broker) can carry one prefix, so deployments or CI
# runs can share a Redis server without sharing queues or counts.
REDIS_KEY_PREFIX = env_str("REDIS_KEY_PREFIX")
_REDIS_PREFIX = f"{REDIS_KEY_PREFIX}:" if REDIS_KEY_PREFIX else ""
# A cache outage must not take the site down: reads miss, writes are dropped, throttles let
# requests through (api/throttles.py), and the outage is logged once a minute (citerec/outage.py).
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
DJANGO_REDIS_LOGGER = "citerec.cache"
_CACHE_SECONDS_TO_WAIT = env_float("CACHE_REDIS_TIMEOUT", 0.5)
# A hung cache Redis is waited on once per process, not once per call: after a failed call the
# cache is skipped for this long, then probed in the background (citerec/caches.py).
_CACHE_BREAKER_SECONDS = env_float("CACHE_BREAKER_SECONDS", 10.0)
# /healthz answers 503 when one of these fails; the others only make it "degraded".
HEALTHZ_REQUIRED = env_list("HEALTHZ_REQUIRED", ["database", "broker"])
CACHES = (
    redis_caches(
        _CACHE_REDIS_URL,
        prefix=_REDIS_PREFIX,
        timeouts=_CACHE_TIMEOUTS,
        wait=_CACHE_SECONDS_TO_WAIT,
        circuit_seconds=_CACHE_BREAKER_SECONDS,
    )
    if _CACHE_REDIS_URL
    else local_caches(_CACHE_TIMEOUTS)
)

# --- Celery: Redis when REDIS_URL is set, otherwise tasks run eagerly in process ---------
REDIS_URL = env_str("REDIS_URL")
# "memory://localhost" rather than "memory://": kombu warns about a missing host name otherwise.
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery closes the database connection before and after every job unless this is set: a new
# connection (and a new PostgreSQL backend with cold caches) per resolution chunk. Workers keep
# theirs instead, closed as Django closes a request's: when CONN_MAX_AGE has passed or after an
# error (citerec/celery.py); Celery itself still closes it every this many jobs.
CELERY_DB_REUSE_MAX = 1000
# Redis re-delivers a message a worker took but never acked (its process was killed) after
# the visibility timeout: minutes, not kombu's hour. Every job must finish well within it (a
# resolution chunk takes seconds; chunk retries back off at most 2 minutes), or it is delivered
# twice; the jobs are idempotent, so that costs time, not correctness.
BROKER_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 600)
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": BROKER_VISIBILITY_TIMEOUT,
    # Look for such messages every few seconds (kombu's default is every 100 s).
    "unacked_restore_interval": max(1, min(30, BROKER_VISIBILITY_TIMEOUT // 5)),
    "unacked_restore_throttle": 1,
}
# Every job stops past these many seconds: at the soft limit SoftTimeLimitExceeded is raised in
# it (the job fails, saying so), at the hard limit its pool process is killed and the job failed
# with that reason, never re-delivered. Both stay below the visibility timeout. A soft limit of
# 0 is none; one at or past the hard limit would put the hard one off (Celery arms the hard
# limit when the soft one fires), so it is refused.
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 540)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 480) or None
if CELERY_TASK_TIME_LIMIT < 1 or (CELERY_TASK_SOFT_TIME_LIMIT or 0) >= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        f"CELERY_TASK_SOFT_TIME_LIMIT={CELERY_TASK_SOFT_TIME_LIMIT} must be below "
        f"CELERY_TASK_TIME_LIMIT={CELERY_TASK_TIME_LIMIT} (and that at least 1)"
    )
# Publishing (dispatching chunks, retries) waits out a short broker outage.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 6, "interval_start": 0.5, "interval_step": 1, "interval_max": 5,
}  # fmt: skip
# A worker whose database does not answer waits this long at start, then exits (it never
# takes jobs it can only fail).
CITEREC_WORKER_DATABASE_WAIT = env_int("CITEREC_WORKER_DATABASE_WAIT", 60)
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_QUEUE_NAMES = ("resolution", "notices", "crossref", "ingestion", "default")
CELERY_TASK_QUEUES = [Queue(name) for name in CELERY_QUEUE_NAMES]
# Tasks are routed by name (their module's, but for curation/tasks.py's measure_citations, which
# keeps the name of its first home), so each kind of work scales on its own queue.
CELERY_TASK_ROUTES = {
    "curation.resolution.tasks.*": {"queue": "resolution"},
    "curation.notices.tasks.*": {"queue": "notices"},
    "curation.crossref.tasks.*": {"queue": "crossref"},
    "curation.ingestion.tasks.*": {"queue": "ingestion"},
}

# A resolution run nothing has touched (queued, taken or finished a chunk) for this long is
# re-queued by beat; a chunk takes seconds, the margin covers a backlog of other runs ahead.
RESOLUTION_STALE_RUN_MINUTES = env_int("RESOLUTION_STALE_RUN_MINUTES", 15)
# A paper queued or being fetched that nothing has touched for this long is queued again by
# beat (its message was lost, or the harvest that asked for it stopped before queueing it).
INGESTION_STALE_MINUTES = env_int("INGESTION_STALE_MINUTES", 60)
# arXiv publishes new metadata once a day: the harvest runs every ARXIV_HARVEST_EVERY_HOURS,
# for the sets in ARXIV_HARVEST_SETS ('' = all of arXiv), each from where the last one got to.
ARXIV_HARVEST_EVERY_HOURS = env_int("ARXIV_HARVEST_EVERY_HOURS", 24)
ARXIV_HARVEST_SETS = [s.strip() for s in env_str("ARXIV_HARVEST_SETS", "").split(",")]

# Periodic jobs (celery beat), one module per area.
CELERY_BEAT_SCHEDULE = {
    **NOTICES_BEAT_SCHEDULE, **RESOLUTION_BEAT_SCHEDULE,
    **ingestion_beat_schedule(sets=ARXIV_HARVEST_SETS, every_hours=ARXIV_HARVEST_EVERY_HOURS),
}  # fmt: skip

# The broker's keys carry the deployment's prefix too (REDIS_KEY_PREFIX, above).
if _REDIS_PREFIX:
    CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = _REDIS_PREFIX

# --- Import limits ---------------------------------------------------------------------------
# CITEREC_MAX_<NAME> for each limit in curation/limits.py (what it bounds and its default are
# there, README "Settings" lists them all): ..._JSON_FILE_BYTES, _STRING_CHARS, _JSON_DEPTH,
# _REFERENCE_FILE_BYTES, _REFERENCE_CHARS, _LINE_BYTES, _CSV_FILE_BYTES, _CSV_FIELD_CHARS,
# _SOURCE_MEMBERS, _SOURCE_BYTES, _SOURCE_MEMBER_BYTES, _SOURCE_RATIO, _SOURCE_REFERENCES.
# Read on each use (`current_limits()`), so tests change them as settings.
globals().update({name: env_int(name, default) for name, default in Limits.defaults().items()})

# --- Integrations ------------------------------------------------------------------------
CITEREC_OFFLINE = env_bool("CITEREC_OFFLINE", default=False)
# Lines per batch of an arXiv snapshot import (one transaction each); benchmarks vary it.
CITEREC_IMPORT_BATCH = env_int("CITEREC_IMPORT_BATCH", 20_000)
# ANALYZE after bulk writes (curation/statistics.py): a table is analyzed once the rows changed
# since its last ANALYZE pass max(MIN_ROWS, FRACTION x its rows).
CITEREC_ANALYZE_MIN_ROWS = env_int("CITEREC_ANALYZE_MIN_ROWS", 5_000)
CITEREC_ANALYZE_FRACTION = env_float("CITEREC_ANALYZE_FRACTION", 0.05)
# Worker processes that parse catalogue files in parallel (the import itself only COPYs).
CITEREC_IMPORT_PROCESSES = env_int("CITEREC_IMPORT_PROCESSES", os.cpu_count() or 1)
# High-precision mode: a link made by matching the reference text (not by an identifier) whose
# calibrated probability (curation/resolution/calibration.py) is below this stays unresolved,
# with its candidates, for curators. 0 = off. bench/calibrate.py prints what each bar keeps.
CITEREC_MIN_LINK_PROBABILITY = env_float("CITEREC_MIN_LINK_PROBABILITY", 0.0)
CROSSREF_BASE_URL = env_str("CROSSREF_BASE_URL", "https://api.crossref.org").rstrip("/")
CROSSREF_MAILTO = env_str("CROSSREF_MAILTO", "")
CITEREC_BASE_URL = env_str("CITEREC_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
NOTICES_REFRESH_RATE_LIMIT = env_str("NOTICES_REFRESH_RATE_LIMIT", "4/s")
# The observation page links a candidate scoring below this (0-100, curation/resolution/
# candidates.py) only after a confirmation that says why. 87 is a title exactly at the
# resolver's "same work" similarity (92 %) with nothing else known; a contradicted year or
# author, or titles that do not agree, score below it.
CURATION_ACCEPT_TOP_CONFIRM_BELOW = env_int("CURATION_ACCEPT_TOP_CONFIRM_BELOW", 87)
# GROBID reads the references of papers arXiv has only as a PDF (unset: they wait, "PDF only").
GROBID_URL = env_str("GROBID_URL", "").rstrip("/")
GROBID_TIMEOUT = env_float("GROBID_TIMEOUT", 120.0)

# --- arXiv: metadata harvest and e-prints ---
# curation/clients/arxiv/: OAI-PMH arXivRaw metadata and e-prints. arXiv asks automated clients
# for one request every 3 s from the whole deployment: the interval is shared by all workers
# through Redis when REDIS_URL is set. The User-Agent names ARXIV_CONTACT (else CROSSREF_MAILTO).
ARXIV_OAI_URL = env_str("ARXIV_OAI_URL", "https://oaipmh.arxiv.org/oai").rstrip("/")
ARXIV_EPRINT_URL = env_str("ARXIV_EPRINT_URL", "https://arxiv.org/e-print").rstrip("/")
ARXIV_REQUEST_INTERVAL = env_float("ARXIV_REQUEST_INTERVAL", 3.0)
ARXIV_CONTACT = env_str("ARXIV_CONTACT", "")
ARXIV_TIMEOUT = env_float("ARXIV_TIMEOUT", 60.0)
# An e-print larger than this is refused (reading stops there), with the paper and cap named.
CITEREC_MAX_EPRINT_BYTES = env_int("CITEREC_MAX_EPRINT_BYTES", 100 * 1024 * 1024)
# Fetched e-prints, content-addressed (curation/clients/arxiv/store.py): never fetched twice.
CITEREC_SOURCE_STORE = Path(env_str("CITEREC_SOURCE_STORE", str(DATA_DIR / "sources")))

# --- Mail: notice reviewers are told of new retractions and expressions of concern -------
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if env_str("EMAIL_HOST")
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "citerec <citerec@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Logging: one line per event on stderr (JSON in production); the process manager keeps it
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "once_per_minute": {"()": "citerec.outage.OncePerInterval", "seconds": 60},
        # A 401 or 429 line per address per minute, not per request (citerec/logs.py).
        "refusals_once_per_client": {"()": "citerec.logs.RefusalsOncePerClient", "seconds": 60},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "citerec.logs.JsonFormatter"},
    },
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "formatter": env_str("LOG_FORMAT", "plain" if DEBUG else "json"),
        }
    },
    "root": {"handlers": ["stderr"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "pgserver": {"level": "WARNING"},
        "axes.apps": {"level": "WARNING"},  # its start-up banner, on every command
        "citerec.cache": {"filters": ["once_per_minute"]},
        "citerec.cache.circuit": {"filters": ["once_per_minute"]},
        "django.request": {"filters": ["refusals_once_per_client"]},
    },
}
