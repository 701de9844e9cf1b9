"""A real streaming replica (citerec/replica.py): readers read it, a curator never sees it stale.

The machine's PostgreSQL accepts no replication connections (pg_hba.conf has no `replication`
line), and a test must not change its configuration: so this test makes its own primary (initdb
in a temporary directory, the test database's schema restored into it) and a replica of it with
`pg_basebackup -R`, both on free ports, and points Django's connections at them for its
duration. Both clusters are stopped and removed at the end, whatever happens.
"""

from __future__ import annotations

import glob
import io
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from citerec import replica
from citerec.caches import local_caches
from curation.models import Observation
from tests.conftest import database_url, free_port, missing_service
from tests.replica_alias import replica_alias

PAPER = "2412.14374"
RECORD_API = f"/api/v1/records/{PAPER}"
RECORD_PAGE = f"/paper/{PAPER}/citation-record.json"
CATCH_UP_WAIT = 60  # seconds: a bound on waiting for replay, not an assertion on speed


def _bindir() -> Path:
    """Return the directory of initdb, pg_ctl and pg_basebackup (CITEREC_PG_BIN, pg_config)."""
    candidates = [os.environ.get("CITEREC_PG_BIN", "")]
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        candidates.append(found.stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for candidate in filter(None, candidates):
        if all((Path(candidate) / tool).exists() for tool in ("initdb", "pg_ctl", "pg_basebackup")):
            return Path(candidate)
    missing_service("no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) found")
    raise AssertionError("unreachable")


@dataclass
class Cluster:
    """A PostgreSQL cluster of this test, run by a non-root OS user (initdb refuses root)."""

    bindir: Path
    data: Path
    port: int
    os_user: str | None

    def run(self, tool: str, *args: str) -> None:
        """Run a server binary as the cluster's OS user; fail with its output if it fails."""
        done = subprocess.run(
            [str(self.bindir / tool), *args], user=self.os_user, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{tool} failed: {done.stdout}{done.stderr}"

    def start(self) -> None:
        """Start the server on 127.0.0.1:port, its socket beside its data directory."""
        self.run(
            "pg_ctl", "-D", str(self.data), "-l", f"{self.data}.log", "-w", "-t", "60", "start",
            "-o", f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data.parent}",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop the server at once (its data is thrown away), if it runs."""
        if (self.data / "postmaster.pid").exists():
            subprocess.run(
                [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                user=self.os_user, capture_output=True, timeout=60, check=False,
            )  # fmt: skip

    def sql(self, statement: str, database: str = "postgres") -> Any:
        """Run one statement as the cluster's superuser; return its first row, if it has rows."""
        url = f"postgresql://postgres@127.0.0.1:{self.port}/{database}"
        with psycopg.connect(url, autocommit=True) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchone() if cursor.description else None


def _os_user() -> str | None:
    """Return the OS user to run the clusters as: root may not, so `postgres` does."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres").pw_name
    except KeyError:
        missing_service("running as root with no `postgres` OS user to run a test cluster")
        raise AssertionError("unreachable") from None


@pytest.fixture
def clusters(transactional_db: None) -> Iterator[tuple[Cluster, Cluster]]:
    """Yield (primary, replica): the test database's schema on a primary, streamed to a replica."""
    bindir, os_user = _bindir(), _os_user()
    base = Path(tempfile.mkdtemp(prefix="citerec-replica-"))
    if os_user:
        shutil.chown(base, user=os_user)
    primary = Cluster(bindir, base / "primary", free_port(), os_user)
    standby = Cluster(bindir, base / "replica", free_port(), os_user)
    name = connections["default"].settings_dict["NAME"]
    try:
        primary.run(
            "initdb", "-D", str(primary.data), "-U", "postgres", "--auth=trust", "--no-sync"
        )
        with (primary.data / "postgresql.conf").open("a") as conf:
            conf.write("fsync = off\nshared_buffers = 16MB\nmax_wal_senders = 4\n")
        primary.start()
        primary.sql(f'CREATE DATABASE "{name}"')
        dump = base / "schema.dump"
        source = database_url(name)
        subprocess.run(
            [str(bindir / "pg_dump"), "-Fc", "--no-owner", "--no-privileges", "-f", str(dump), source],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        subprocess.run(
            [str(bindir / "pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
             "-d", f"postgresql://postgres@127.0.0.1:{primary.port}/{name}", str(dump)],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        primary.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
            "-D", str(standby.data), "-R", "-X", "stream", "-c", "fast",
        )  # fmt: skip
        standby.start()
        assert standby.sql("SELECT pg_is_in_recovery()") == (True,)
        yield primary, standby
    finally:
        standby.stop()
        primary.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def routed(
    clusters: tuple[Cluster, Cluster], settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Cluster, Cluster]]:
    """Point `default` at the test's primary and a `replica` alias at its replica, as
    REPLICA_DATABASE_URL would, with the router and middleware on; put everything back after."""
    primary, standby = clusters
    default = connections["default"]
    saved = dict(default.settings_dict)
    default.close()
    default.settings_dict.update(HOST="127.0.0.1", PORT=primary.port, USER="postgres", PASSWORD="")
    options = {**saved["OPTIONS"], "options": "-c default_transaction_read_only=on"}
    settings.DATABASE_ROUTERS = ["citerec.replica.ReplicaRouter"]
    settings.MIDDLEWARE = ["citerec.replica.ReadRoutingMiddleware", *settings.MIDDLEWARE]
    settings.REPLICA_MAX_LAG_SECONDS = 300  # the lag of a paused replay is tolerated by readers
    settings.CACHES = local_caches({"default": 300, "records": 300}, f"replica-{os.getpid()}")
    replica.reset_breaker()
    try:
        with replica_alias(
            monkeypatch, HOST="127.0.0.1", PORT=standby.port, USER="postgres", PASSWORD="",
            OPTIONS=options,
        ):  # fmt: skip
            yield primary, standby
    finally:
        default.close()
        default.settings_dict.clear()
        default.settings_dict.update(saved)


def _caught_up(primary: Cluster, standby: Cluster) -> None:
    """Wait until the replica has replayed everything the primary has written so far."""
    (position,) = primary.sql("SELECT pg_current_wal_lsn()::text")
    deadline = time.monotonic() + CATCH_UP_WAIT
    while standby.sql(f"SELECT pg_last_wal_replay_lsn() >= '{position}'::pg_lsn") != (True,):
        assert time.monotonic() < deadline, "the replica did not replay within the wait bound"
        time.sleep(0.05)


def _get(client: Client, url: str, **headers: str) -> tuple[bytes, list[str]]:
    """GET url; return the body and the SQL the replica ran for it."""
    with CaptureQueriesContext(connections[replica.REPLICA]) as on_replica:
        response = client.get(url, **headers)
    assert response.status_code == 200, response.content[:500]
    return response.content, [q["sql"] for q in on_replica.captured_queries]


def _served_by_primary(replica_sql: list[str]) -> bool:
    # The replica may be asked how far it has replayed, and nothing else.
    return all(sql.strip() == replica.STATUS_SQL.strip() for sql in replica_sql)


def test_readers_read_the_replica_and_a_curator_never_sees_a_stale_record(
    routed: tuple[Cluster, Cluster], sample_record_path: Path, settings: Any
) -> None:
    primary, standby = routed
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    carla = get_user_model().objects.create_user("carla", "carla@example.org", "pw-Xk2!long")
    carla.groups.add(Group.objects.get_or_create(name="Curators")[0])
    token = {"HTTP_AUTHORIZATION": f"Token {Token.objects.create(user=carla).key}"}
    junk = Observation.objects.get(work_title="write newline")
    _caught_up(primary, standby)

    # An anonymous reader's record (API and page) is read from the replica.
    anonymous = Client()
    before, replica_sql = _get(anonymous, RECORD_API)
    assert not _served_by_primary(replica_sql)
    page, replica_sql = _get(anonymous, RECORD_PAGE)
    assert not _served_by_primary(replica_sql) and page == before

    # The replica stops replaying; a curator saves a decision through the API.
    standby.sql("SELECT pg_wal_replay_pause()")
    curator = Client()
    saved = curator.post(
        f"/api/v1/observations/{junk.pk}/state",
        {"status": "parse_uncertain", "reason": "BibTeX artefact", "revision": junk.revision},
        content_type="application/json",
        **token,
    )
    assert saved.status_code == 200, saved.content

    # Her next page shows it, from the primary; an anonymous reader still gets the replica's.
    after, replica_sql = _get(curator, RECORD_API, **token)
    assert _served_by_primary(replica_sql)
    assert (
        after != before and after.count(b"parse_uncertain") == before.count(b"parse_uncertain") + 1
    )
    stale, replica_sql = _get(anonymous, RECORD_API)
    assert not _served_by_primary(replica_sql) and stale == before

    # A curator in the admin (a session) reads the primary too.
    in_admin = Client()
    in_admin.force_login(carla)
    seen, replica_sql = _get(in_admin, RECORD_PAGE)
    assert replica_sql == [] and seen == after

    # A replica lagging past the readers' bound is skipped for them as well.
    settings.REPLICA_MAX_LAG_SECONDS = 0
    fresh, replica_sql = _get(anonymous, RECORD_API)
    assert _served_by_primary(replica_sql) and fresh == after

    # Replay resumes: readers read the replica again, and it has the decision.
    settings.REPLICA_MAX_LAG_SECONDS = 300
    standby.sql("SELECT pg_wal_replay_resume()")
    _caught_up(primary, standby)
    caught_up, replica_sql = _get(anonymous, RECORD_API)
    assert not _served_by_primary(replica_sql) and caught_up == after
