"""What the catalogue import commands print, and the re-queue they trigger."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError, OutputWrapper

from curation.resolution.catalogue_rows import ImportReport
from curation.resolution.tasks import requeue_after_import


def finish_import(
    report: ImportReport, path: Path, what: str, *, stdout: OutputWrapper, stderr: OutputWrapper,
    requeue: bool,
) -> None:  # fmt: skip
    """Report skipped lines and totals; re-queue unresolved references when records were added.

    A file that could not be read to its end (a truncated .gz) keeps what was read before, and
    the command then fails with one line naming the file and the line reached.
    """
    for message in report.bad:
        stderr.write(f"skipped {message}")
    if report.bad_count > len(report.bad):
        stderr.write(f"... and {report.bad_count - len(report.bad)} more bad lines")
    if report.resumed_at:
        stdout.write(f"resumed after line {report.resumed_at}")
    stdout.write(
        f"{path}: {report.inserted} {what} added, {report.updated} updated, "
        f"{report.bad_count} bad lines skipped"
    )
    if report.inserted and requeue:
        requeue_after_import.delay()
        stdout.write("re-queued unresolved and malformed references")
    if report.stopped:
        raise CommandError(report.stopped)
