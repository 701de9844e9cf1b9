"""Catalogue imports run as the runtime role the README prescribes, to their end.

The runtime role owns no index or table, and PostgreSQL lets only an owner merge a GIN
pending list or ANALYZE; the imports reach both through the owner's SECURITY DEFINER function
`resolution_settle_catalogue`. Each import runs in a real process connected as a runtime role
made by `grant_runtime_role` (random name, dropped at the end), against this process's test
database.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from curation.models import Paper
from curation.resolution.models import CrossrefWork, ResolutionRun, TitleWord
from tests.conftest import REPO, database_url
from tests.resolution.snapshot import snapshot_line
from tests.runtime_roles import RuntimeRole, runtime_role_fixture

pytestmark = pytest.mark.django_db(transaction=True)


runtime_role = runtime_role_fixture("citerec_test_imp")


def run_as(role: RuntimeRole, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a management command in its own process, connected as the runtime role."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("REDIS_URL")}
    environment.pop("MIGRATION_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**environment, "DEBUG": "1", "DATABASE_URL": role.url()},
        capture_output=True,
        text=True,
        timeout=300,
    )


def pending_pages(index: str) -> int:
    """Merge what is left in a GIN index's pending list (as the owner); return its pages."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        return int(cursor.fetchone()[0])


def analyzed_at(*tables: str) -> dict[str, datetime | None]:
    """Return when each table was last ANALYZEd by hand (not by autovacuum)."""
    with psycopg.connect(database_url(connection.settings_dict["NAME"])) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        rows = conn.execute(
            "SELECT relname, last_analyze FROM pg_stat_user_tables WHERE relname = ANY(%s)",
            [list(tables)],
        ).fetchall()
    return dict(rows)


def assert_analyzed_since(before: dict[str, datetime | None], *tables: str) -> None:
    after = analyzed_at(*tables)
    for table in tables:
        assert after[table] is not None, f"{table} was never analyzed"
        assert before.get(table) is None or after[table] > before[table], table  # type: ignore[operator]


def index_definitions(*tables: str) -> dict[str, tuple[int, str]]:
    """Return each index of the tables by name: its oid and its definition."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, i.indexrelid, pg_get_indexdef(i.indexrelid) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ANY(%s::regclass[])",
            [list(tables)],
        )
        return {name: (int(oid), definition) for name, oid, definition in cursor.fetchall()}


def assert_rebuilt_as_declared(
    before: dict[str, tuple[int, str]], after: dict[str, tuple[int, str]], deferred: set[str]
) -> None:
    """The same indexes, defined the same; the deferred ones built anew, the others kept."""
    assert {n: d for n, (_, d) in after.items()} == {n: d for n, (_, d) in before.items()}
    rebuilt = {name for name in after if after[name][0] != before[name][0]}
    assert rebuilt == deferred


def test_the_arxiv_snapshot_imports_as_the_runtime_role(
    runtime_role: RuntimeRole, tmp_path: Path
) -> None:
    path = tmp_path / "snapshot.jsonl"
    path.write_text(
        "\n".join(
            snapshot_line(
                f"2101.{n:05d}",
                f"Runtime role paper {n}",
                "Ana Moreau",
                2021,
                journal_ref=f"Phys. Rev. D {n} (2021) 1{n}",
            )  # fmt: skip
            for n in range(1, 40)
        )
        + "\n"
    )
    tables = ("curation_paper", "resolution_paperlocator")
    before = analyzed_at(*tables)
    indexes = index_definitions(*tables)

    result = run_as(runtime_role, "import_arxiv_snapshot", str(path), "--verbosity", "0")

    assert result.returncode == 0, result.stderr[-3000:]
    assert "must be owner" not in result.stderr
    assert f"{path}: 39 papers added, 0 updated, 0 bad lines skipped" in result.stdout
    # finish_import ran: the re-resolution after the catalogue grew was queued (and, with no
    # broker, run in process as the runtime role).
    assert "re-queued unresolved and malformed references" in result.stdout
    assert ResolutionRun.objects.filter(selection__requeue="catalogue import").exists()
    assert Paper.objects.filter(in_catalogue=True).count() == 39
    assert pending_pages("paper_title_fts") == 0  # the import merged the pending list
    assert_analyzed_since(before, *tables)
    # A load larger than the (empty) catalogue: its secondary indexes were built after it.
    assert_rebuilt_as_declared(
        indexes,
        index_definitions(*tables),
        {"paper_title_fts", "paper_title_key", "paper_doi", "paper_locator"},
    )
    assert TitleWord.objects.filter(word="runtime", titles=39).exists()


def test_crossref_works_import_as_the_runtime_role(
    runtime_role: RuntimeRole, tmp_path: Path
) -> None:
    path = tmp_path / "works.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(
                {
                    "DOI": f"10.1000/rt.{n}",
                    "title": [f"Runtime role work {n}"],
                    "issued": {"date-parts": [[2020]]},
                }
            )  # fmt: skip
            for n in range(1, 40)
        )
        + "\n"
    )
    before = analyzed_at("resolution_crossrefwork")

    result = run_as(runtime_role, "import_crossref_works", str(path), "--verbosity", "0")

    assert result.returncode == 0, result.stderr[-3000:]
    assert f"{path}: 39 works added, 0 updated, 0 bad lines skipped" in result.stdout
    assert "re-queued unresolved and malformed references" in result.stdout
    assert ResolutionRun.objects.filter(selection__requeue="catalogue import").exists()
    assert CrossrefWork.objects.count() == 39
    assert pending_pages("crossref_title_fts") == 0
    assert_analyzed_since(before, "resolution_crossrefwork")


def test_the_runtime_role_can_settle_only_the_catalogue(runtime_role: RuntimeRole) -> None:
    """The function it may call does one fixed job: it names no index or table of the caller's."""
    with psycopg.connect(runtime_role.url()) as conn:
        with pytest.raises(psycopg.errors.RaiseException, match="unknown catalogue"):
            conn.execute("SELECT resolution_settle_catalogue('curation_observation')")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT gin_clean_pending_list('obs_text_fts'::regclass)")


def index_oid(name: str) -> int | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)::oid", [name])
        oid = cursor.fetchone()[0]
    return int(oid) if oid is not None else None


def test_a_crossref_load_larger_than_the_catalogue_builds_the_title_index_after_it(
    runtime_role: RuntimeRole, tmp_path: Path
) -> None:
    """The runtime role drops and rebuilds the index only through the owner's two functions."""
    path = tmp_path / "works.jsonl"
    padding = "p" * 300  # 400 works of about 400 bytes: a load of ~40 works by its size
    path.write_text(
        "\n".join(
            json.dumps(
                {
                    "DOI": f"10.1000/big.{n}",
                    "title": [f"Bulk loaded work {n}"],
                    "publisher": padding,
                }
            )  # fmt: skip
            for n in range(400)
        )
        + "\n"
    )
    before = index_oid("crossref_title_fts")
    analyzed = analyzed_at("resolution_crossrefwork")
    indexes = index_definitions("resolution_crossrefwork")

    result = run_as(runtime_role, "import_crossref_works", str(path), "--verbosity", "0",
                    "--no-requeue")  # fmt: skip

    assert result.returncode == 0, result.stderr[-3000:]
    assert f"{path}: 400 works added, 0 updated, 0 bad lines skipped" in result.stdout
    after = index_oid("crossref_title_fts")
    assert after is not None and after != before  # dropped before the load, built after it
    assert_rebuilt_as_declared(
        indexes,
        index_definitions("resolution_crossrefwork"),
        {"crossref_title_fts", "crossref_title_key", "crossref_locator", "crossref_arxiv_versions"},
    )
    assert_analyzed_since(analyzed, "resolution_crossrefwork")
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        cursor.execute(
            "SELECT doi FROM resolution_crossrefwork WHERE to_tsvector('simple'::regconfig, "
            "COALESCE(title_norm, '')) @@ 'bulk & 399'::tsquery"
        )
        assert cursor.fetchall() == [("10.1000/big.399",)]
        cursor.execute("RESET enable_seqscan")
    # A small load into a catalogue this size keeps the index as it is.
    small = tmp_path / "small.jsonl"
    small.write_text(json.dumps({"DOI": "10.1000/one", "title": ["One more"]}) + "\n")
    result = run_as(runtime_role, "import_crossref_works", str(small), "--verbosity", "0",
                    "--no-requeue")  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert index_oid("crossref_title_fts") == after
