"""Choose the SECRET_KEY: never a public one when DEBUG is off.

- `SECRET_KEY` set: used, unless DEBUG is off and it is a key published in this repository, or
  a weak one by Django's own measure (`check --deploy`, security.W009): fewer than 50
  characters, fewer than 5 different ones, or "django-insecure-" in front. The history signing
  key derives from it (curation/history.py), so a guessable key would let history be forged.
- unset, `DEBUG=1`: the public development key. It starts with "django-insecure-", so
  `manage.py check --deploy` flags it (security.W009).
- unset, `DEBUG=0`, embedded database (no `DATABASE_URL`, a single machine): a random key made
  once and kept in the data directory (mode 0600), so `python manage.py ...` works as written.
- unset, `DEBUG=0`, a real database: refused; every process of a deployment needs the same key.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

DEV_SECRET_KEY = "django-insecure-citerec-development-key-published-in-the-repository-0123456789"
# Keys that were ever in the repository: public, so refused in production.
PUBLIC_KEYS = frozenset(
    {
        DEV_SECRET_KEY,
        "insecure-dev-key-only-for-debug-and-tests-never-in-production-0123456789",
    }
)
LOCAL_KEY_FILE = "secret_key"
# Django's measure of a strong key (django.core.checks.security.base, security.W009).
MIN_LENGTH = 50
MIN_UNIQUE_CHARACTERS = 5
INSECURE_PREFIX = "django-insecure-"


def local_secret_key(data_dir: Path) -> str:
    """Return the key kept in data_dir, making a random one on first use."""
    path = data_dir / LOCAL_KEY_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        candidate = secrets.token_urlsafe(50)
        try:  # O_EXCL: two first commands at once agree on whichever key was written first
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(candidate)
    key = path.read_text().strip()
    if len(key) < MIN_LENGTH:
        raise ImproperlyConfigured(f"{path} holds no usable key; delete it to make a new one")
    return key


def weak(key: str) -> bool:
    """Return whether Django's deployment check would call the key insecure."""
    return (
        len(key) < MIN_LENGTH
        or len(set(key)) < MIN_UNIQUE_CHARACTERS
        or key.startswith(INSECURE_PREFIX)
    )


def choose_secret_key(
    *, configured: str, debug: bool, embedded: bool, data_dir: Path, allow_dev_secret: str
) -> str:
    """Return the key to run with, or raise ImproperlyConfigured naming what to set."""
    if allow_dev_secret and not debug:
        raise ImproperlyConfigured(
            "CITEREC_ALLOW_DEV_SECRET is no longer honoured: set SECRET_KEY when DEBUG is off"
        )
    if configured:
        if not debug and configured in PUBLIC_KEYS:
            raise ImproperlyConfigured(
                "SECRET_KEY is the development key published in the repository; "
                "set a secret one when DEBUG is off"
            )
        if not debug and weak(configured):
            raise ImproperlyConfigured(
                f"SECRET_KEY is too weak for DEBUG off: it needs {MIN_LENGTH} characters or "
                f"more, {MIN_UNIQUE_CHARACTERS} different ones or more, and no "
                f"{INSECURE_PREFIX!r} in front (make one with "
                "python -c 'import secrets; print(secrets.token_urlsafe(50))')"
            )
        return configured
    if debug:
        return DEV_SECRET_KEY
    if embedded:
        return local_secret_key(data_dir)
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
