"""A bulk Crossref load builds the title index after it, instead of row by row.

Kept up row by row, `crossref_title_fts` (GIN over the title's tsvector) costs more than half of
PostgreSQL's time per stored work; built once after a load as large as the catalogue, a small
part of it. Only the owner may drop or create an index, and imports run as the runtime role:

- resolution_defer_catalogue_index('crossref') drops the index (true when it did);
- resolution_settle_catalogue('crossref'), run after every import, now builds it again when it
  is missing (so a load that stopped half-way leaves it missing only until the next settle),
  else merges its pending list as before, and ANALYZEs.

Both take a catalogue name, never an index or table name, run as the owner (SECURITY DEFINER)
with the search path pinned to the schema and pg_temp last, as 0005's did; EXECUTE is taken
from PUBLIC, and `grant_runtime_role` grants it to the runtime role.
"""

from importlib import import_module

from django.db import migrations

settle_0005 = import_module("curation.resolution.migrations.0005_catalogue_settle_function")

SETTLE = r"""
DO $do$
BEGIN
    EXECUTE format($fn$
        CREATE OR REPLACE FUNCTION resolution_settle_catalogue(catalogue text) RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %I, pg_temp AS $body$
        DECLARE
            merged bigint := 0;
        BEGIN
            IF catalogue = 'arxiv' THEN
                merged := gin_clean_pending_list('paper_title_fts'::regclass);
                ANALYZE curation_paper;
                ANALYZE resolution_paperlocator;
            ELSIF catalogue = 'crossref' THEN
                IF to_regclass('crossref_title_fts') IS NULL THEN
                    -- 0001's GinIndex(SearchVector("title_norm", config="simple")), exactly
                    CREATE INDEX crossref_title_fts ON resolution_crossrefwork USING gin
                        ((to_tsvector('simple'::regconfig, COALESCE(title_norm, ''))));
                ELSE
                    merged := gin_clean_pending_list('crossref_title_fts'::regclass);
                END IF;
                ANALYZE resolution_crossrefwork;
            ELSE
                RAISE EXCEPTION 'unknown catalogue %%: expected arxiv or crossref', catalogue;
            END IF;
            RETURN merged;
        END
        $body$
    $fn$, current_schema());
END
$do$;
"""

DEFER = r"""
DO $do$
BEGIN
    EXECUTE format($fn$
        CREATE FUNCTION resolution_defer_catalogue_index(catalogue text) RETURNS boolean
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %I, pg_temp AS $body$
        BEGIN
            IF catalogue <> 'crossref' THEN
                RAISE EXCEPTION 'unknown catalogue %%: only crossref defers its index', catalogue;
            END IF;
            IF to_regclass('crossref_title_fts') IS NULL THEN
                RETURN false;
            END IF;
            DROP INDEX crossref_title_fts;
            RETURN true;
        END
        $body$
    $fn$, current_schema());
END
$do$;
REVOKE ALL ON FUNCTION resolution_defer_catalogue_index(text) FROM PUBLIC;
"""


class Migration(migrations.Migration):
    dependencies = [("resolution", "0008_chunk_interrupted")]

    operations = [
        migrations.RunSQL(
            SETTLE, settle_0005.CREATE.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")
        ),
        migrations.RunSQL(DEFER, "DROP FUNCTION IF EXISTS resolution_defer_catalogue_index(text);"),
    ]
