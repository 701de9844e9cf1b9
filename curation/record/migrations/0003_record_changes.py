"""When each paper's record last changed substantively, kept by triggers (RecordChange).

Every statement writing observations (insert, update, delete; COPY too) moves the time of the
records it touches to the latest `changed_at` among its rows, never backwards: the citing paper
and the cited paper of the new rows, and on an update the paper an observation cited before
(a reference unlinked from a paper changes that paper's inbound list). A delete counts as a
change now. Rows are upserted in paper-id order, as record versions are, so two writers of the
same records wait for each other instead of deadlocking.

The existing times are filled from the observations, as the feed computed them until now.
"""

from django.db import migrations, models

_CHANGES = """
INSERT INTO record_recordchange AS c (paper_id, changed_at)
SELECT id, max(at) FROM ({rows}) s(id, at)
 WHERE id IS NOT NULL
 GROUP BY id ORDER BY id
ON CONFLICT (paper_id) DO UPDATE SET changed_at = excluded.changed_at
 WHERE c.changed_at < excluded.changed_at
"""
_NEW = "SELECT paper_id, changed_at FROM new_rows UNION ALL SELECT cited_paper_id, changed_at FROM new_rows"
_UNLINKED = (
    "SELECT o.cited_paper_id, n.changed_at FROM old_rows o JOIN new_rows n ON n.id = o.id"
    " WHERE o.cited_paper_id IS DISTINCT FROM n.cited_paper_id"
)
_DELETED = (
    "SELECT paper_id, now() FROM old_rows UNION ALL SELECT cited_paper_id, now() FROM old_rows"
)

# Every record's time from the observations already there. (bench/make_arxiv_db.py writes the
# same times with a plain INSERT: its bulk load drops the primary key this upsert relies on.)
FILL = _CHANGES.format(
    rows="SELECT paper_id, changed_at FROM curation_observation UNION ALL"
    " SELECT cited_paper_id, changed_at FROM curation_observation"
    " WHERE cited_paper_id IS NOT NULL"
)

_FORWARD = [
    f"""
CREATE FUNCTION record_note_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    {_CHANGES.format(rows=_NEW)};
  ELSIF TG_OP = 'UPDATE' THEN
    {_CHANGES.format(rows=_NEW + " UNION ALL " + _UNLINKED)};
  ELSE
    {_CHANGES.format(rows=_DELETED)};
  END IF;
  RETURN NULL;
END $$;
""",
    "CREATE TRIGGER record_change_insert AFTER INSERT ON curation_observation"
    " REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_note_changes();",
    "CREATE TRIGGER record_change_update AFTER UPDATE ON curation_observation"
    " REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows"
    " FOR EACH STATEMENT EXECUTE FUNCTION record_note_changes();",
    "CREATE TRIGGER record_change_delete AFTER DELETE ON curation_observation"
    " REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION record_note_changes();",
    # The triggers first: a write committed while this runs is not missed, and the fill
    # only moves a time forward.
    FILL,
]
_BACKWARD = [
    *(
        f"DROP TRIGGER IF EXISTS record_change_{event} ON curation_observation;"
        for event in ("insert", "update", "delete")
    ),
    "DROP FUNCTION IF EXISTS record_note_changes();",
]


class Migration(migrations.Migration):
    dependencies = [
        ("record", "0002_child_bumps_one_pass"),
        ("curation", "0012_analyze_stale_function"),
    ]

    operations = [
        migrations.CreateModel(
            name="RecordChange",
            fields=[
                (
                    "paper",
                    models.OneToOneField(
                        db_constraint=False,
                        on_delete=models.deletion.CASCADE,
                        primary_key=True,
                        related_name="record_change",
                        serialize=False,
                        to="curation.paper",
                    ),
                ),
                ("changed_at", models.DateTimeField()),
            ],
            options={
                "db_table": "record_recordchange",
                "indexes": [models.Index(fields=["changed_at", "paper"], name="record_change_at")],
            },
        ),
        migrations.RunSQL(sql=_FORWARD, reverse_sql=_BACKWARD),
    ]
