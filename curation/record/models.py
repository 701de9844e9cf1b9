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


class RecordChange(models.Model):
    """When a paper's record last changed substantively: the latest `changed_at` of every
    observation that points, or pointed, at the paper (made by it or citing it).

    The `records?changed_since` feed reads it by its index, so a page costs the same whether a
    day's changes touch five hundred records or fifty thousand; computing each candidate's
    latest change from its observations grew with how scattered the changes were
    (bench/README-scale.md). Rows are written only by the triggers of migration 0003, whoever
    writes the observations (services, imports, COPY). The time only moves forward: a reference
    unlinked from a paper leaves the paper's record changed at that moment, although no
    observation points at it any more.
    """

    paper = models.OneToOneField(
        "curation.Paper",
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="record_change",
        db_constraint=False,  # written by triggers, like record versions; a join drops strays
    )
    changed_at = models.DateTimeField()

    class Meta:
        db_table = "record_recordchange"
        indexes = [models.Index(fields=["changed_at", "paper"], name="record_change_at")]

    def __str__(self) -> str:
        return f"paper {self.paper_id} record changed at {self.changed_at}"
