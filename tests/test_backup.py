"""A backup restores to a database that exports the same records and keeps its history."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from curation.record.canonical import canonical_json
from tests.conftest import REPO, database_url


def _sql(database: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(database_url(database), autocommit=True) as conn:
        cursor = conn.execute(sql)
        return cursor.fetchall() if cursor.description else []


def _export(url: str) -> bytes:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "1"}
    command = [sys.executable, "manage.py", "export_record", "2412.14374", "--as-of", "2026-08-20T03:56:00Z"]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, check=True, timeout=120).stdout


@pytest.mark.django_db(transaction=True)
def test_dump_and_restore_round_trip(tmp_path: Path, sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())
    dump = tmp_path / "citerec.dump"
    restored = f"{connection.settings_dict['NAME']}_restored"
    _sql("postgres", f'DROP DATABASE IF EXISTS "{restored}"')
    _sql("postgres", f'CREATE DATABASE "{restored}"')
    try:
        call_command("backup_database", str(dump), stdout=io.StringIO())
        call_command("restore_database", str(dump), restored, stdout=io.StringIO())

        sample = canonical_json(json.loads(sample_record_path.read_text()))
        assert _export(database_url(restored)) == sample
        counts = _sql(
            restored,
            "SELECT (SELECT count(*) FROM curation_observation), "
            "(SELECT count(*) FROM curation_observationevent), (SELECT count(*) FROM pghistory_context)",
        )
        assert counts == [(33, 33, 1)]
        protected = _sql(restored, "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'pgtrigger_append_only%'")
        assert protected[0][0] > 0  # history stays append-only after a restore
    finally:
        _sql("postgres", f'DROP DATABASE IF EXISTS "{restored}"')
