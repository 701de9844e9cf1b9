"""resolution_settle_catalogue(catalogue): the owner's index upkeep after a catalogue import.

PostgreSQL lets only a table's owner merge a GIN index's pending list (gin_clean_pending_list)
or ANALYZE it, and the runtime role the imports run as owns nothing (README "Database roles").
This function runs as its owner, the schema owner that runs `migrate` (SECURITY DEFINER), and
does exactly that upkeep for the two catalogues and nothing else: it takes a catalogue name,
never an index or table name, so a caller cannot point it anywhere else. Its search path is
pinned to the schema with pg_temp last, so a caller's temporary table cannot stand in for a
catalogue table. EXECUTE is taken from PUBLIC here; `grant_runtime_role` grants it to the
runtime role.
"""

from django.db import migrations

CREATE = r"""
DO $do$
BEGIN
    EXECUTE format($fn$
        CREATE FUNCTION resolution_settle_catalogue(catalogue text) RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %I, pg_temp AS $body$
        DECLARE
            merged bigint;
        BEGIN
            IF catalogue = 'arxiv' THEN
                merged := gin_clean_pending_list('paper_title_fts'::regclass);
                ANALYZE curation_paper;
                ANALYZE resolution_paperlocator;
            ELSIF catalogue = 'crossref' THEN
                merged := gin_clean_pending_list('crossref_title_fts'::regclass);
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
REVOKE ALL ON FUNCTION resolution_settle_catalogue(text) FROM PUBLIC;
"""

DROP = "DROP FUNCTION IF EXISTS resolution_settle_catalogue(text);"


class Migration(migrations.Migration):
    dependencies = [("resolution", "0004_catalogue_locators")]

    operations = [migrations.RunSQL(CREATE, DROP)]
