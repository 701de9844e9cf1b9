"""Curators' search finds words inside URLs and identifiers (curation/search.py).

Two immutable SQL functions and one GIN index on an expression, replacing obs_text_fts (title
and raw text as the parser tokenised them: "github.com/nvidia/apex" was one token):

- `citerec_search_fold(text)`: accents stripped (NFD, combining marks U+0300-U+036F dropped;
  ø ł đ ħ ı ß æ œ spelled in ASCII) before lower case, so a server whose locale lowers ASCII
  only folds "MÜLLER" too; ASCII punctuation as spaces; a version apart from its id
  ("1512.03385v2" -> "1512 03385 v2", so "1512.03385" finds it);
- `citerec_observation_search(raw_text, work_title, work_venue, work_doi, work_arxiv_id,
  work_pith_arxiv_id)`: the folded fields as a 'simple' tsvector.

Not a column: a generated or trigger-kept column on curation_observation would be copied into
every history event (pghistory tracks every field), rewrite the table when added, and be one
more value to keep in step; an index expression costs only the index. The same number of GIN
indexes as before is kept up on each write. Everything the functions call is schema-qualified
(pg_catalog, and the migration's schema for the fold), so they give the same answer whatever
the caller's search_path (pg_restore runs them with an empty one).

On 100,020 observations (bench/bench_slow_pages.py's database, a machine at load 9 on 2 cores)
the new index builds in 14.8 s, the one it replaces in 10.2 s; the migration holds the table's
write lock that long, and the build grows with the rows (about 0.15 ms each here): on tens of
millions, plan a window for it. The index holds the functions' bodies inlined: a function whose
body changes needs a REINDEX of obs_text_fts in the same migration.
"""

from __future__ import annotations

from typing import Any

import django.contrib.postgres.indexes
from django.db import migrations

import curation.search

FOLD = r"""
CREATE OR REPLACE FUNCTION {schema}.citerec_search_fold(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT pg_catalog.regexp_replace(pg_catalog.lower(CASE
    WHEN pg_catalog.octet_length(value) = pg_catalog.length(value) THEN value  -- ASCII: no accents
    ELSE pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
      pg_catalog.replace(pg_catalog.translate(pg_catalog.regexp_replace(
        pg_catalog.normalize(value, 'NFD'), '[\u0300-\u036f]+', '', 'g'),
      'øØłŁđĐħĦı', 'oOlLdDhHi'), 'ß', 'ss'), 'æ', 'ae'), 'Æ', 'AE'), 'œ', 'oe'), 'Œ', 'OE')
  END),
  '[!-/:-@\[-`{{-~]+|(?<=[0-9])(?=v[0-9])', ' ', 'g')
$$
"""

DOCUMENT = """
CREATE OR REPLACE FUNCTION {schema}.citerec_observation_search(
    raw_text text, work_title text, work_venue text, work_doi text, work_arxiv_id text,
    work_pith_arxiv_id text
) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT pg_catalog.to_tsvector('pg_catalog.simple'::regconfig, {schema}.citerec_search_fold(
    COALESCE(raw_text, '') || ' ' || COALESCE(work_title, '') || ' ' || COALESCE(work_venue, '')
    || ' ' || COALESCE(work_doi, '') || ' ' || COALESCE(work_arxiv_id, '') || ' '
    || COALESCE(work_pith_arxiv_id, '')))
$$
"""

DROP = """
DROP FUNCTION IF EXISTS {schema}.citerec_observation_search(text, text, text, text, text, text);
DROP FUNCTION IF EXISTS {schema}.citerec_search_fold(text);
"""


def _schema(schema_editor: Any) -> str:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT quote_ident(current_schema())")
        return str(cursor.fetchone()[0])


def create_functions(apps: Any, schema_editor: Any) -> None:
    """Install the fold and the document functions in the migration's schema."""
    schema = _schema(schema_editor)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FOLD.format(schema=schema))
        cursor.execute(DOCUMENT.format(schema=schema))


def drop_functions(apps: Any, schema_editor: Any) -> None:
    """Remove both functions (the index that used them is gone by then)."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(DROP.format(schema=_schema(schema_editor)))


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0010_history_written_by_owner_functions"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="observation", name="obs_text_fts"),
        migrations.RunPython(create_functions, drop_functions),
        migrations.AddIndex(
            model_name="observation",
            index=django.contrib.postgres.indexes.GinIndex(
                curation.search.ObservationSearchDocument(), name="obs_text_fts"
            ),
        ),
    ]
