"""Record versions and the triggers that bump them, whoever writes (services, imports, COPY).

What a record shows, and so which writes bump which records' versions:

- an observation (insert, update, delete): its citing paper's record (outbound) and its cited
  paper's record (inbound), before and after the change;
- its resolution or standing notice (resolver runs, curator decisions, notice refreshes, record
  imports): the same two records, through the observation;
- an external citation measurement: its paper's record;
- a paper's fields shown in records (title, dates, version, category): its own record, the
  records it cites (it is their inbound citing paper) and the records citing it.

Statement-level AFTER triggers with transition tables: one upsert per statement whatever its
row count (a resolver batch, a notice refresh or a catalogue import writes thousands of rows in
a statement), in the writing transaction, so a record's version moves exactly when a committed
change becomes visible. Version rows are locked in paper-id order within each statement.
"""

from django.db import migrations, models

_BUMP = """
CREATE FUNCTION record_bump_versions(ids bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO record_recordversion AS v (paper_id, version, token, changed_at)
  SELECT id, 1, gen_random_uuid(), now()
    FROM (SELECT DISTINCT id FROM unnest(ids) AS t(id) WHERE id IS NOT NULL ORDER BY id) s
  ON CONFLICT (paper_id) DO UPDATE
    SET version = v.version + 1, token = excluded.token, changed_at = excluded.changed_at
$$;
"""

# Which records each table's rows belong to: the citing paper (outbound) and the cited paper
# (inbound) of an observation, directly or through its resolution and standing notice.
_OBSERVATION_PAPERS = (
    "SELECT paper_id FROM {rows} UNION ALL SELECT cited_paper_id FROM {rows}"
)
_CHILD_PAPERS = (
    "SELECT o.paper_id FROM curation_observation o WHERE o.id IN (SELECT observation_id FROM {rows})"
    " UNION ALL SELECT o.cited_paper_id FROM curation_observation o"
    " WHERE o.id IN (SELECT observation_id FROM {rows})"
)
_MEASUREMENT_PAPERS = "SELECT paper_id FROM {rows}"
# A paper's own fields show in its record, in the records it cites (as citing_paper of their
# inbound observations) and in the records citing it (as cited_paper). Other columns (authors,
# catalogue matching forms) are not in any record: changing only them bumps nothing.
_PAPER_FIELDS = (
    "arxiv_id, title, primary_category, latest_version, submitted_at, last_updated,"
    " snapshot_observed_at"
)
_PAPER_PAPERS = f"""
WITH changed AS (
  SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
   WHERE ROW({", ".join("n." + f.strip() for f in _PAPER_FIELDS.split(","))})
         IS DISTINCT FROM ROW({", ".join("o." + f.strip() for f in _PAPER_FIELDS.split(","))}))
SELECT id FROM changed
UNION ALL SELECT ob.cited_paper_id FROM curation_observation ob
  WHERE ob.paper_id IN (SELECT id FROM changed)
UNION ALL SELECT ob.paper_id FROM curation_observation ob
  WHERE ob.cited_paper_id IN (SELECT id FROM changed)
"""


def _function(name: str, papers: str) -> str:
    """Return a trigger function bumping the records of a statement's old and new rows."""
    new = papers.format(rows="new_rows")
    old = papers.format(rows="old_rows")
    return f"""
CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
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


def _triggers(table: str, function: str, events: tuple[str, ...]) -> str:
    referencing = {
        "INSERT": "NEW TABLE AS new_rows",
        "UPDATE": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
        "DELETE": "OLD TABLE AS old_rows",
    }
    return "\n".join(
        f"CREATE TRIGGER record_version_{event.lower()} AFTER {event} ON {table} "
        f"REFERENCING {referencing[event]} FOR EACH STATEMENT EXECUTE FUNCTION {function}();"
        for event in events
    )


ALL = ("INSERT", "UPDATE", "DELETE")
_TABLES = [
    ("curation_observation", "record_bump_observation", _OBSERVATION_PAPERS, ALL),
    ("curation_resolution", "record_bump_resolution", _CHILD_PAPERS, ALL),
    ("curation_standingnotice", "record_bump_standingnotice", _CHILD_PAPERS, ALL),
    ("curation_externalcitationmeasurement", "record_bump_measurement", _MEASUREMENT_PAPERS, ALL),
]

_FORWARD = [_BUMP]
for _table, _name, _papers, _events in _TABLES:
    _FORWARD += [_function(_name, _papers), _triggers(_table, _name, _events)]
# A paper update only (an insert has nothing citing it yet; observations protect it from delete).
_FORWARD += [
    f"""
CREATE FUNCTION record_bump_paper() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM record_bump_versions(ARRAY({_PAPER_PAPERS}));
  RETURN NULL;
END $$;
""",
    _triggers("curation_paper", "record_bump_paper", ("UPDATE",)),
]

_BACKWARD = [
    *(
        f"DROP TRIGGER IF EXISTS record_version_{event.lower()} ON {table};"
        for table, _, _, events in _TABLES
        for event in events
    ),
    "DROP TRIGGER IF EXISTS record_version_update ON curation_paper;",
    *(f"DROP FUNCTION IF EXISTS {name}();" for _, name, _, _ in _TABLES),
    "DROP FUNCTION IF EXISTS record_bump_paper();",
    "DROP FUNCTION IF EXISTS record_bump_versions(bigint[]);",
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [("curation", "0005_observation_imported_identifiers")]

    operations = [
        migrations.CreateModel(
            name="RecordVersion",
            fields=[
                ("paper_id", models.BigIntegerField(primary_key=True, serialize=False)),
                ("version", models.BigIntegerField(default=0)),
                ("token", models.UUIDField()),
                ("changed_at", models.DateTimeField()),
            ],
            options={"db_table": "record_recordversion"},
        ),
        migrations.RunSQL(sql=_FORWARD, reverse_sql=_BACKWARD),
    ]
