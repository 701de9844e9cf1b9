"""ANALYZE after bulk writes (issue 43): the runtime role, which may not ANALYZE, gets fresh
statistics through the owner's `citerec_analyze_stale` once a bulk write commits, and only then.

The writes run as production's web and workers connect: a runtime role made by
`grant_runtime_role`, in its own connection or process. `last_analyze` is read from a fresh
statistics snapshot: ANALYZE reports to the shared statistics at once, so no waiting is needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import override_settings

from curation.audit import Actor
from curation.models import Observation, Resolution
from curation.references.listed import ListedReference
from curation.services import reference_list_import
from curation.statistics import _AnalyzeAfterCommit, analyze_after_commit, written_tables
from tests.conftest import REPO, database_url
from tests.runtime_roles import RuntimeRole, runtime_role_fixture

pytestmark = pytest.mark.django_db(transaction=True)

runtime_role = runtime_role_fixture("citerec_test_stat")

ANALYZE = "SELECT citerec_analyze_stale(%s::text[], %s, %s)"


def last_analyze(table: str) -> datetime | None:
    """Return when `table` was last ANALYZEd by a session (not autovacuum), read afresh."""
    with psycopg.connect(database_url(connection.settings_dict["NAME"])) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = %s", [table]
        ).fetchone()
    assert row is not None, table
    return row[0]  # type: ignore[no-any-return]


def moved(before: datetime | None, table: str) -> bool:
    after = last_analyze(table)
    return after is not None and (before is None or after > before)


def stale(conn: psycopg.Connection[Any], min_rows: int, fraction: float, *tables: str) -> list[str]:
    """Call the owner's function on this connection; return the tables it analyzed."""
    row = conn.execute(ANALYZE, [list(tables), min_rows, fraction]).fetchone()
    assert row is not None
    return row[0]  # type: ignore[no-any-return]


def insert_papers(role: RuntimeRole, first: int, count: int) -> psycopg.Connection[Any]:
    """Insert catalogue papers as the runtime role (a paper's insert keeps no history) in a new
    session, its counts flushed to the shared statistics, as curation.statistics does before it
    asks (the flush runs before the server answers the next statement); return the session."""
    conn = psycopg.connect(role.url(), autocommit=True)
    conn.execute(
        "INSERT INTO curation_paper (arxiv_id, title, authors, doi, categories, journal_ref, "
        "comments, in_catalogue, first_author, title_norm, title_key, withdrawn) "
        "SELECT '9901.' || lpad(n::text, 5, '0'), 't', '', '', '', '', '', true, '', 't', 't', false "
        "FROM generate_series(%s::int, %s::int) n",
        [first, first + count - 1],
    )
    conn.execute("SELECT pg_stat_force_next_flush()")
    conn.execute("SELECT 1")
    return conn


def test_the_runtime_role_analyzes_a_table_once_enough_of_it_changed(
    runtime_role: RuntimeRole,
) -> None:
    before = last_analyze("curation_paper")
    with insert_papers(runtime_role, 1, 20) as conn:
        assert stale(conn, 1000, 0.1, "curation_paper") == []
    assert last_analyze("curation_paper") == before

    insert_papers(runtime_role, 21, 2000).close()
    with runtime_role.connect() as conn:  # another session: the counts come from the shared stats
        assert stale(conn, 1000, 0.1, "curation_paper") == ["curation_paper"]
    assert moved(before, "curation_paper")
    with runtime_role.connect() as conn:  # and are not counted again
        assert stale(conn, 1000, 0.1, "curation_paper") == []


def test_a_table_off_the_list_is_refused(runtime_role: RuntimeRole) -> None:
    with runtime_role.connect() as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(ANALYZE, [["curation_paper", "auth_user"], 0, 0.0])
    before = last_analyze("auth_user")
    with runtime_role.connect() as conn:
        conn.execute("ANALYZE auth_user")  # not its table: PostgreSQL skips it with a warning
    assert last_analyze("auth_user") == before


def test_a_table_being_analyzed_elsewhere_is_skipped_not_waited_for(
    runtime_role: RuntimeRole,
) -> None:
    insert_papers(runtime_role, 1, 1500).close()
    with runtime_role.connect() as holder, runtime_role.connect() as caller:
        holder.execute(
            "SELECT pg_advisory_xact_lock(hashtext('citerec_analyze_stale'), "
            "hashtext('curation_paper'))"
        )
        assert stale(caller, 1000, 0.0, "curation_paper") == []
        holder.rollback()
        assert stale(caller, 1000, 0.0, "curation_paper") == ["curation_paper"]


def test_the_tables_written_include_their_history() -> None:
    assert written_tables([Observation]) == {
        "curation_observation", "curation_observationevent", "pghistory_context",
    }  # fmt: skip


def run_as(role: RuntimeRole, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a management command in its own process, connected as the runtime role."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("REDIS_URL")}
    environment.pop("MIGRATION_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**environment, "DEBUG": "1", "DATABASE_URL": role.url(), **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def import_as(role: RuntimeRole, tmp_path: Path, arxiv_id: str, references: int) -> None:
    """Import a plain-text reference list of `references` entries as the runtime role, with a
    bar of 100 changed rows (or a tenth of the table)."""
    path = tmp_path / f"{arxiv_id}.txt"
    path.write_text(
        "\n\n".join(
            f"A. Author{n}. A study of thing {n}. J. Things {n}, 1 (2001)."
            for n in range(references)
        )
    )
    done = run_as(
        role, "import_references", arxiv_id, str(path), "--format", "text",
        CITEREC_ANALYZE_MIN_ROWS="100", CITEREC_ANALYZE_FRACTION="0.1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_large_reference_list_import_analyzes_the_observations_a_small_one_does_not(
    runtime_role: RuntimeRole, tmp_path: Path
) -> None:
    before = last_analyze("curation_observation")
    import_as(runtime_role, tmp_path, "2401.00001", 400)
    assert Observation.objects.count() == 400
    assert moved(before, "curation_observation")
    assert moved(before, "curation_observationevent")

    # Right after: the first import's changes are not counted again.
    before = last_analyze("curation_observation")
    import_as(runtime_role, tmp_path, "2401.00002", 20)
    assert Observation.objects.count() == 420
    assert last_analyze("curation_observation") == before


@override_settings(CITEREC_ANALYZE_MIN_ROWS=100, CITEREC_ANALYZE_FRACTION=0.1)
def test_one_analyze_after_the_outer_transaction_commits() -> None:
    from django.db import transaction

    before = last_analyze("curation_observation")
    with transaction.atomic():
        for paper in ("2401.00002", "2401.00003"):
            reference_list_import(
                arxiv_id=paper,
                references=[ListedReference(n + 1, f"B. Writer. Paper {paper} {n}. 2002.") for n in range(120)],
                actor=Actor.command("test"),
                reason="test",
            )
        jobs = [e[1] for e in connection.run_on_commit if isinstance(e[1], _AnalyzeAfterCommit)]
        assert len(jobs) == 1  # both imports share one call
        assert last_analyze("curation_observation") == before  # not inside the write
    assert moved(before, "curation_observation")
    analyze_after_commit(Observation)  # outside a transaction: at once, and nothing is stale now




def test_a_resolution_run_analyzes_the_verdicts_it_wrote(
    runtime_role: RuntimeRole, tmp_path: Path
) -> None:
    import_as(runtime_role, tmp_path, "2401.00003", 150)
    before = last_analyze("curation_resolution")
    done = run_as(
        runtime_role, "resolve", "--all", "--sync",
        CITEREC_ANALYZE_MIN_ROWS="100", CITEREC_ANALYZE_FRACTION="0.1", CITEREC_OFFLINE="1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert Resolution.objects.count() == 150
    assert moved(before, "curation_resolution")
    assert moved(before, "curation_resolutionevent")


def test_a_source_bundle_ingest_analyzes_what_its_chunks_wrote(
    runtime_role: RuntimeRole, tmp_path: Path
) -> None:
    from tests.ingestion.conftest import dev_source
    from tests.ingestion.test_bundles_and_pdfs import _tar_member

    path = tmp_path / "arXiv_src_2401_001.tar"
    with tarfile.open(path, "w") as tar:
        _tar_member(tar, "2401/2401.00001.gz", dev_source("Eyewall__2018jas").read_bytes())
        _tar_member(tar, "2401/2401.00002.gz", dev_source("kdpenner__dustmorph").read_bytes())
    before = {t: last_analyze(t) for t in ("curation_observation", "curation_resolution")}
    done = run_as(
        runtime_role, "ingest_source_bundle", str(path), "--sync", "--chunk-size", "2",
        CITEREC_ANALYZE_MIN_ROWS="10", CITEREC_ANALYZE_FRACTION="0.1", CITEREC_OFFLINE="1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert Resolution.objects.count() > 10
    assert all(moved(when, table) for table, when in before.items())


def test_a_record_import_analyzes_the_observations_and_verdicts_it_stored(
    runtime_role: RuntimeRole, sample_record_path: Path
) -> None:
    before = {t: last_analyze(t) for t in ("curation_observation", "curation_resolution")}
    done = run_as(
        runtime_role, "import_records", str(sample_record_path),
        CITEREC_ANALYZE_MIN_ROWS="10", CITEREC_ANALYZE_FRACTION="0.1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert Observation.objects.count() > 10
    assert all(moved(when, table) for table, when in before.items())
