"""What the catalogue import commands print, and the re-queue they trigger."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError, OutputWrapper

from curation.resolution.catalogue_rows import ImportReport
from curation.resolution.services import unresolved_requeue


def finish_import(
    report: ImportReport, path: Path, what: str, *, stdout: OutputWrapper, stderr: OutputWrapper,
    requeue: bool,
) -> None:  # fmt: skip
    """Report skipped lines and totals; re-queue unresolved references when records were added.

    A file that could not be read to its end (a truncated .gz) keeps what was read before, and
    the command then fails with one line naming the file and the line reached. It queues no
    re-resolution: that re-reads every unresolved reference (146k on a real catalogue), which
    is worth it once, for the whole file. The run that resumes and finishes the file queues it,
    also when the rows it adds were all read by the failed run (`resumed_at`).
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
    if report.stopped:
        if requeue:
            stdout.write("not re-queued: that waits until the file is read to its end")
        raise CommandError(report.stopped)
    if (report.inserted or report.resumed_at) and requeue:
        unresolved_requeue()
        stdout.write("re-queued unresolved and malformed references")
