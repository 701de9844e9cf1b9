"""A bulk catalogue load builds every secondary index after it; the unused `_like` indexes go.

0009 deferred the Crossref title index only. Kept up row by row, the other secondary indexes
cost the load too (about a third of PostgreSQL's CPU per Crossref work left after that, and
random page writes once an index outgrows shared_buffers), and built after it, a sort each.
Now, for a load at least as large as the catalogue:

- resolution_defer_catalogue_index('crossref') drops crossref_title_fts, crossref_title_key,
  crossref_locator and crossref_arxiv_versions; ('arxiv') drops paper_title_fts,
  paper_title_key, paper_doi and paper_locator (true when it dropped one). The unique indexes
  stay: the upserts need them.
- resolution_settle_catalogue(catalogue), run after every import, builds each of them that is
  missing, exactly as the models declare it (with more maintenance memory than the default
  64 MB), else merges the GIN pending lists as before, and ANALYZEs.

Both take a catalogue name, never an index or table name, run as the owner (SECURITY DEFINER)
with the search path pinned to the schema and pg_temp last, as 0005's and 0009's did.

The `varchar_pattern_ops` indexes Django adds beside a unique CharField serve only
`LIKE 'prefix%'`, and nothing asks that of curation_paper.arxiv_id or
resolution_crossrefwork.doi (lookups are `=`/`= ANY`, served by the unique indexes; the admin's
`=` searches are `UPPER(...) =`, served by neither): each was one more index to keep up per row.
"""

from importlib import import_module

from django.db import migrations

previous = import_module("curation.resolution.migrations.0009_crossref_title_index_after_load")

# (catalogue, index, definition): the models' secondary indexes a bulk load builds after it.
DEFERRED = (
    ("crossref", "crossref_title_fts",
     "CREATE INDEX crossref_title_fts ON resolution_crossrefwork USING gin "
     "((to_tsvector('simple'::regconfig, COALESCE(title_norm, ''))))"),
    ("crossref", "crossref_title_key",
     "CREATE INDEX crossref_title_key ON resolution_crossrefwork (title_key)"),
    ("crossref", "crossref_locator",
     "CREATE INDEX crossref_locator ON resolution_crossrefwork (volume, first_page) "
     "WHERE NOT (volume = '')"),
    ("crossref", "crossref_arxiv_versions",
     "CREATE INDEX crossref_arxiv_versions ON resolution_crossrefwork USING gin "
     "(arxiv_versions) WITH (fastupdate = off) "
     "WHERE NOT (arxiv_versions = '{}'::varchar(300)[])"),
    ("arxiv", "paper_title_fts",
     "CREATE INDEX paper_title_fts ON curation_paper USING gin "
     "((to_tsvector('simple'::regconfig, COALESCE(title_norm, ''))))"),
    ("arxiv", "paper_title_key", "CREATE INDEX paper_title_key ON curation_paper (title_key)"),
    ("arxiv", "paper_doi", "CREATE INDEX paper_doi ON curation_paper (doi) WHERE NOT (doi = '')"),
    ("arxiv", "paper_locator",
     "CREATE INDEX paper_locator ON resolution_paperlocator (volume, first_page)"),
)  # fmt: skip


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


_TABLE = (
    "(VALUES "
    + ", ".join(f"({_sql_text(c)}, {_sql_text(i)}, {_sql_text(d)})" for c, i, d in DEFERRED)
    + ") AS deferred(catalogue, index_name, definition)"
)

SETTLE = r"""
DO $do$
BEGIN
    EXECUTE format($fn$
        CREATE OR REPLACE FUNCTION resolution_settle_catalogue(catalogue text) RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %I, pg_temp AS $body$
        DECLARE
            merged bigint := 0;
            missing record;
        BEGIN
            IF catalogue NOT IN ('arxiv', 'crossref') THEN
                RAISE EXCEPTION 'unknown catalogue %%: expected arxiv or crossref', catalogue;
            END IF;
            SET LOCAL maintenance_work_mem = '256MB';
            FOR missing IN SELECT definition FROM TABLE_OF_DEFERRED
                WHERE deferred.catalogue = resolution_settle_catalogue.catalogue
                  AND to_regclass(index_name) IS NULL
            LOOP
                EXECUTE missing.definition;
            END LOOP;
            IF catalogue = 'arxiv' THEN
                merged := gin_clean_pending_list('paper_title_fts'::regclass);
                ANALYZE curation_paper;
                ANALYZE resolution_paperlocator;
            ELSE
                merged := gin_clean_pending_list('crossref_title_fts'::regclass);
                ANALYZE resolution_crossrefwork;
            END IF;
            RETURN merged;
        END
        $body$
    $fn$, current_schema());
END
$do$;
""".replace("TABLE_OF_DEFERRED", _TABLE.replace("%", "%%"))

DEFER = r"""
DO $do$
BEGIN
    EXECUTE format($fn$
        CREATE OR REPLACE FUNCTION resolution_defer_catalogue_index(catalogue text)
        RETURNS boolean
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %I, pg_temp AS $body$
        DECLARE
            present record;
            dropped boolean := false;
        BEGIN
            IF catalogue NOT IN ('arxiv', 'crossref') THEN
                RAISE EXCEPTION 'unknown catalogue %%: expected arxiv or crossref', catalogue;
            END IF;
            FOR present IN SELECT index_name FROM TABLE_OF_DEFERRED
                WHERE deferred.catalogue = resolution_defer_catalogue_index.catalogue
                  AND to_regclass(index_name) IS NOT NULL
            LOOP
                EXECUTE format('DROP INDEX %%I', present.index_name);
                dropped := true;
            END LOOP;
            RETURN dropped;
        END
        $body$
    $fn$, current_schema());
END
$do$;
""".replace("TABLE_OF_DEFERRED", _TABLE.replace("%", "%%"))

DEFER_0009 = previous.DEFER.replace(
    "CREATE FUNCTION resolution_defer_catalogue_index",
    "CREATE OR REPLACE FUNCTION resolution_defer_catalogue_index",
).replace("REVOKE ALL ON FUNCTION resolution_defer_catalogue_index(text) FROM PUBLIC;", "")

LIKE_INDEXES = (
    ("curation_paper_arxiv_id_8e3490eb_like", "curation_paper", "arxiv_id"),
    ("resolution_crossrefwork_doi_90e73439_like", "resolution_crossrefwork", "doi"),
)
DROP_LIKE = "".join(f"DROP INDEX IF EXISTS {name};" for name, _, _ in LIKE_INDEXES)
CREATE_LIKE = "".join(
    f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column} varchar_pattern_ops);"
    for name, table, column in LIKE_INDEXES
)


class Migration(migrations.Migration):
    dependencies = [
        ("resolution", "0009_crossref_title_index_after_load"),
        ("curation", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(SETTLE, previous.SETTLE),
        migrations.RunSQL(DEFER, DEFER_0009),
        migrations.RunSQL(DROP_LIKE, CREATE_LIKE),
    ]
