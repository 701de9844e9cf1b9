"""Settings from the environment: production values pass Django's deployment checks."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from citerec.secret_key import DEV_SECRET_KEY, LOCAL_KEY_FILE, PUBLIC_KEYS, choose_secret_key

REPO = Path(__file__).resolve().parent.parent


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    environ.update(env, DJANGO_SETTINGS_MODULE="citerec.settings")
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_values() -> None:
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="a-real-secret-" + "x7Q!" * 16,
        ALLOWED_HOSTS="citerec.example.org",
        # The cache Redis's memory settings are checked against a real server of the test's
        # own (tests/test_deploy_checks.py); here the cache is the process's memory.
        REDIS_URL="",
        CACHE_REDIS_URL="",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


DATABASE = "postgresql://postgres@127.0.0.1:5432/citerec"  # never reached: settings only


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = run_manage("check", DEBUG="0", DATABASE_URL=DATABASE)
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


@pytest.mark.parametrize("key", sorted(PUBLIC_KEYS))
def test_production_refuses_the_published_development_key(key: str) -> None:
    result = run_manage("check", DEBUG="0", SECRET_KEY=key, DATABASE_URL=DATABASE)
    assert result.returncode != 0
    assert "SECRET_KEY is the development key published in the repository" in result.stderr


def test_the_old_dev_secret_escape_hatch_is_refused() -> None:
    result = run_manage("check", DEBUG="0", CITEREC_ALLOW_DEV_SECRET="1", DATABASE_URL=DATABASE)
    assert result.returncode != 0
    assert "CITEREC_ALLOW_DEV_SECRET is no longer honoured" in result.stderr


def test_check_deploy_flags_the_development_key() -> None:
    result = run_manage("check", "--deploy", DEBUG="1", DATABASE_URL=DATABASE)
    assert "security.W009" in result.stdout + result.stderr


def test_embedded_default_makes_one_random_local_key(tmp_path: Path) -> None:
    choose = partial(choose_secret_key, configured="", allow_dev_secret="", data_dir=tmp_path)
    first = choose(debug=False, embedded=True)
    assert first == choose(debug=False, embedded=True) not in PUBLIC_KEYS
    assert len(first) >= 50
    assert (tmp_path / LOCAL_KEY_FILE).stat().st_mode & 0o077 == 0  # owner only
    assert choose(debug=True, embedded=True) == DEV_SECRET_KEY
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set"):
        choose(debug=False, embedded=False)


def test_eager_default_publishes_without_a_broker_warning() -> None:
    environ = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    environ.update(DEBUG="1", DATABASE_URL=DATABASE, DJANGO_SETTINGS_MODULE="citerec.settings")
    script = (
        "import django; django.setup()\n"
        "from citerec.celery import app\n"
        "with app.connection_for_write() as connection:\n"
        "    connection.default_channel\n"
        "print(app.conf.broker_url)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=environ, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("memory://")
    assert "No hostname was supplied" not in result.stderr


def test_redis_key_prefix_covers_broker_queues_and_cache(redis_url: str) -> None:
    """Two deployments (or CI runs) on one Redis with their own prefixes share no queue."""
    import uuid

    import redis

    prefix = f"citerec-test-{uuid.uuid4().hex}"
    environ = {k: v for k, v in os.environ.items() if k != "CACHE_REDIS_URL"}
    environ.update(
        DEBUG="1",
        DATABASE_URL=DATABASE,
        REDIS_URL=redis_url,
        REDIS_KEY_PREFIX=prefix,
        DJANGO_SETTINGS_MODULE="citerec.settings",
    )
    script = (
        "import django; django.setup()\n"
        "from django.core.cache import cache\n"
        "from citerec.celery import app\n"
        "app.send_task('curation.tasks.no_such_task', queue='default')\n"
        "cache.set('probe', 1)\n"
    )
    server = redis.Redis.from_url(redis_url)
    try:
        result = subprocess.run(
            [sys.executable, "-c", script], cwd=REPO, env=environ, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        keys = {key.decode() for key in server.scan_iter(f"{prefix}:*")}
        assert f"{prefix}:default" in keys  # the queue itself
        assert server.llen(f"{prefix}:default") == 1
        assert any(key.startswith(f"{prefix}:citerec:default:") for key in keys)  # the cache
    finally:
        for key in server.scan_iter(f"{prefix}:*"):
            server.delete(key)


@pytest.mark.parametrize(
    "key",
    [
        "short-but-random-Q7!x",  # fewer than 50 characters
        "a" * 64,  # fewer than 5 different characters
        "django-insecure-" + "k3Y!q9" * 10,  # marked insecure by whoever made it
    ],
)
def test_production_refuses_a_weak_secret_key(key: str, tmp_path: Path) -> None:
    choose = partial(choose_secret_key, configured=key, allow_dev_secret="", data_dir=tmp_path)

    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY is too weak"):
        choose(debug=False, embedded=False)
    assert choose(debug=True, embedded=False) == key  # development may use any key


def test_production_takes_a_strong_secret_key(tmp_path: Path) -> None:
    key = "a-real-secret-" + "x7Q!" * 16

    assert (
        choose_secret_key(
            configured=key, debug=False, embedded=False, data_dir=tmp_path, allow_dev_secret=""
        )
        == key
    )


def _replica_settings(**env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "REPLICA_DATABASE_URL"}
    environ.update(
        DEBUG="1", DATABASE_URL=DATABASE, DJANGO_SETTINGS_MODULE="citerec.settings", **env
    )
    script = (
        "from django.conf import settings as s\n"
        "r = s.DATABASES.get('replica')\n"
        "print(r and (r['HOST'], r['PORT'], r['USER'], r['OPTIONS']['options'],"
        " r['OPTIONS']['connect_timeout']), getattr(s, 'DATABASE_ROUTERS', []), s.MIDDLEWARE[0])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=environ, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_a_replica_url_adds_a_read_only_replica_with_its_router_and_middleware() -> None:
    shown = _replica_settings(
        REPLICA_DATABASE_URL="postgresql://runtime:pw@replica.example:5433/citerec"
    )

    assert (
        "('replica.example', 5433, 'runtime', '-c jit=off -c default_transaction_read_only=on', 2)"
        in shown
    )
    assert "['citerec.replica.ReplicaRouter'] citerec.replica.ReadRoutingMiddleware" in shown


def test_without_a_replica_url_the_primary_serves_everything_as_before() -> None:
    shown = _replica_settings()

    assert shown.startswith("None [] ") and "ReadRouting" not in shown
