"""Bump the records of a resolution's or standing notice's observation in one pass per statement.

Migration 0001 found the papers of a statement's resolutions and notices with four lookups of
their observations (citing paper and cited paper, for the old rows and for the new ones). An
UPDATE names the same observations in its old and new rows (the observation is the row's primary
key), so this reads each observation once: the observation ids of both transition tables,
deduplicated, then both papers of each. Same records bumped, same triggers; about half the
cost of a notice refresh's or a resolver chunk's UPDATE of these tables (bench/README-resolution.md).
"""

from django.db import migrations

_PAPERS = (
    "SELECT unnest(ARRAY[o.paper_id, o.cited_paper_id]) FROM curation_observation o"
    " WHERE o.id IN ({ids})"
)


def _function(name: str) -> str:
    new, old = "SELECT observation_id FROM new_rows", "SELECT observation_id FROM old_rows"
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_bump_versions(ARRAY({_PAPERS.format(ids=new)}));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM record_bump_versions(ARRAY({_PAPERS.format(ids=f"{new} UNION {old}")}));
  ELSE
    PERFORM record_bump_versions(ARRAY({_PAPERS.format(ids=old)}));
  END IF;
  RETURN NULL;
END $$;
"""


# As migration 0001 wrote them, to go back.
_CHILD_PAPERS = (
    "SELECT o.paper_id FROM curation_observation o WHERE o.id IN (SELECT observation_id FROM {rows})"
    " UNION ALL SELECT o.cited_paper_id FROM curation_observation o"
    " WHERE o.id IN (SELECT observation_id FROM {rows})"
)


def _function_0001(name: str) -> str:
    new, old = _CHILD_PAPERS.format(rows="new_rows"), _CHILD_PAPERS.format(rows="old_rows")
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_bump_versions(ARRAY({new}));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM record_bump_versions(ARRAY({new} UNION ALL {old}));
  ELSE
    PERFORM record_bump_versions(ARRAY({old}));
  END IF;
  RETURN NULL;
END $$;
"""


_NAMES = ("record_bump_resolution", "record_bump_standingnotice")


class Migration(migrations.Migration):
    dependencies = [("record", "0001_initial")]

    operations = [
        migrations.RunSQL(
            [_function(name) for name in _NAMES], [_function_0001(name) for name in _NAMES]
        )
    ]
