"""Record versions: bumped by database triggers whenever something a record shows changes."""

from __future__ import annotations

from django.db import models


class RecordVersion(models.Model):
    """The version of one paper's record; no row means the record never changed since creation.

    Rows are written only by the triggers of migration 0001, which says which writes bump which
    records. `token` is random per bump, so a cache key built from it
    is never reused, not even after a rolled-back bump or a database restored from a backup.
    """

    paper_id = models.BigIntegerField(primary_key=True)
    version = models.BigIntegerField(default=0)
    token = models.UUIDField()
    changed_at = models.DateTimeField()

    class Meta:
        db_table = "record_recordversion"

    def __str__(self) -> str:
        return f"paper {self.paper_id} record version {self.version}"
