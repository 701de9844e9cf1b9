"""What an imported record said, kept apart from citerec's own link (issue 13, no self-feeding).

Existing imported observations: while their judgement is still the imported one, work_doi and
work_pith_arxiv_id are what the record said and are copied. Once citerec or a curator decided,
those columns hold the link: the DOI is kept only when it was not the DOI citerec verified, and
the pith_arxiv_id (which the link overwrites) is left empty — the next run starts from the
title, year, venue and the identifiers the record itself gave.
"""

import pgtrigger.compiler
import pgtrigger.migrations
from django.db import migrations, models

_BACKFILL = [
    """
    UPDATE curation_observation o
    SET imported_doi = o.work_doi, imported_pith_arxiv_id = o.work_pith_arxiv_id
    WHERE o.raw_text IS NULL AND NOT EXISTS (
        SELECT 1 FROM curation_resolution r
        WHERE r.observation_id = o.id AND r.origin IN ('computed', 'curator'))
    """,
    """
    UPDATE curation_observation o SET imported_doi = o.work_doi
    FROM curation_resolution r
    WHERE r.observation_id = o.id AND o.raw_text IS NULL AND r.origin IN ('computed', 'curator')
      AND NOT (r.resolver_source = 'doi' AND r.status IN ('verified_exact', 'verified_fuzzy'))
    """,
]


class Migration(migrations.Migration):

    dependencies = [
        ('curation', '0004_history_context_insert_only'),
    ]

    operations = [
        pgtrigger.migrations.RemoveTrigger(
            model_name='observation',
            name='insert_insert',
        ),
        pgtrigger.migrations.RemoveTrigger(
            model_name='observation',
            name='update_update',
        ),
        pgtrigger.migrations.RemoveTrigger(
            model_name='observation',
            name='delete_delete',
        ),
        migrations.AddField(
            model_name='observation',
            name='imported_doi',
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
        migrations.AddField(
            model_name='observation',
            name='imported_pith_arxiv_id',
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name='observationevent',
            name='imported_doi',
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
        migrations.AddField(
            model_name='observationevent',
            name='imported_pith_arxiv_id',
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        # Before the history triggers come back: a backfill is not a curated change.
        migrations.RunSQL(_BACKFILL, migrations.RunSQL.noop),
        pgtrigger.migrations.AddTrigger(
            model_name='observation',
            trigger=pgtrigger.compiler.Trigger(name='insert_insert', sql=pgtrigger.compiler.UpsertTriggerSql(func='WITH _pgh_attached_context AS ( SELECT _pgh_attach_context() AS value ) INSERT INTO "curation_observationevent" ("changed_at", "cited_paper_id", "cited_work_id", "id", "imported_doi", "imported_pith_arxiv_id", "no_canonical_record", "normalized_text", "occurrence", "paper_id", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id", "pinned", "raw_text", "reference_index", "retired_at", "revision", "source", "source_observed_at", "work_arxiv_id", "work_described", "work_doi", "work_id", "work_metadata_source", "work_pith_arxiv_id", "work_snapshot_observed_at", "work_title", "work_venue", "work_year") SELECT new_values."changed_at", new_values."cited_paper_id", new_values."cited_work_id", new_values."id", new_values."imported_doi", new_values."imported_pith_arxiv_id", new_values."no_canonical_record", new_values."normalized_text", new_values."occurrence", new_values."paper_id", _pgh_attached_context.value, NOW(), \'insert\', new_values."id", new_values."pinned", new_values."raw_text", new_values."reference_index", new_values."retired_at", new_values."revision", new_values."source", new_values."source_observed_at", new_values."work_arxiv_id", new_values."work_described", new_values."work_doi", new_values."work_id", new_values."work_metadata_source", new_values."work_pith_arxiv_id", new_values."work_snapshot_observed_at", new_values."work_title", new_values."work_venue", new_values."work_year" FROM ( SELECT new_values.* FROM new_values  ) AS new_values, _pgh_attached_context; RETURN NULL;', hash='d6eee19db6dd6010747cd4f3e11358c7a9a5126d', level='STATEMENT', operation='INSERT', pgid='pgtrigger_insert_insert_0cee4', referencing='REFERENCING NEW TABLE AS new_values ', table='curation_observation', when='AFTER')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='observation',
            trigger=pgtrigger.compiler.Trigger(name='update_update', sql=pgtrigger.compiler.UpsertTriggerSql(func='WITH _pgh_attached_context AS ( SELECT _pgh_attach_context() AS value ) INSERT INTO "curation_observationevent" ("changed_at", "cited_paper_id", "cited_work_id", "id", "imported_doi", "imported_pith_arxiv_id", "no_canonical_record", "normalized_text", "occurrence", "paper_id", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id", "pinned", "raw_text", "reference_index", "retired_at", "revision", "source", "source_observed_at", "work_arxiv_id", "work_described", "work_doi", "work_id", "work_metadata_source", "work_pith_arxiv_id", "work_snapshot_observed_at", "work_title", "work_venue", "work_year") SELECT new_values."changed_at", new_values."cited_paper_id", new_values."cited_work_id", new_values."id", new_values."imported_doi", new_values."imported_pith_arxiv_id", new_values."no_canonical_record", new_values."normalized_text", new_values."occurrence", new_values."paper_id", _pgh_attached_context.value, NOW(), \'update\', new_values."id", new_values."pinned", new_values."raw_text", new_values."reference_index", new_values."retired_at", new_values."revision", new_values."source", new_values."source_observed_at", new_values."work_arxiv_id", new_values."work_described", new_values."work_doi", new_values."work_id", new_values."work_metadata_source", new_values."work_pith_arxiv_id", new_values."work_snapshot_observed_at", new_values."work_title", new_values."work_venue", new_values."work_year" FROM ( SELECT new_values.* FROM old_values JOIN new_values ON (old_values."id") = (new_values."id") WHERE (old_values.* IS DISTINCT FROM new_values.*) ) AS new_values, _pgh_attached_context; RETURN NULL;', hash='6b7c0bb7f2fbfa178ee8ec1a831a6c4d40e1d89f', level='STATEMENT', operation='UPDATE', pgid='pgtrigger_update_update_69102', referencing='REFERENCING OLD TABLE AS old_values  NEW TABLE AS new_values ', table='curation_observation', when='AFTER')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='observation',
            trigger=pgtrigger.compiler.Trigger(name='delete_delete', sql=pgtrigger.compiler.UpsertTriggerSql(func='WITH _pgh_attached_context AS ( SELECT _pgh_attach_context() AS value ) INSERT INTO "curation_observationevent" ("changed_at", "cited_paper_id", "cited_work_id", "id", "imported_doi", "imported_pith_arxiv_id", "no_canonical_record", "normalized_text", "occurrence", "paper_id", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id", "pinned", "raw_text", "reference_index", "retired_at", "revision", "source", "source_observed_at", "work_arxiv_id", "work_described", "work_doi", "work_id", "work_metadata_source", "work_pith_arxiv_id", "work_snapshot_observed_at", "work_title", "work_venue", "work_year") SELECT old_values."changed_at", old_values."cited_paper_id", old_values."cited_work_id", old_values."id", old_values."imported_doi", old_values."imported_pith_arxiv_id", old_values."no_canonical_record", old_values."normalized_text", old_values."occurrence", old_values."paper_id", _pgh_attached_context.value, NOW(), \'delete\', old_values."id", old_values."pinned", old_values."raw_text", old_values."reference_index", old_values."retired_at", old_values."revision", old_values."source", old_values."source_observed_at", old_values."work_arxiv_id", old_values."work_described", old_values."work_doi", old_values."work_id", old_values."work_metadata_source", old_values."work_pith_arxiv_id", old_values."work_snapshot_observed_at", old_values."work_title", old_values."work_venue", old_values."work_year" FROM ( SELECT old_values.* FROM old_values  ) AS old_values, _pgh_attached_context; RETURN NULL;', hash='0858157d01fade2aea148127548da4dce10f18d8', level='STATEMENT', operation='DELETE', pgid='pgtrigger_delete_delete_7bbc6', referencing='REFERENCING OLD TABLE AS old_values ', table='curation_observation', when='AFTER')),
        ),
    ]
