# The two paper keys of an observation lose their own indexes: obs_paper_refindex and
# obs_paper_changed lead with paper_id, obs_cited_changed with cited_paper_id, and obs_cited_paper
# was the same index as cited_paper_id's own. A resolver write of an observation changes indexed
# columns (never a HOT update), so each index less is one index insert less per row it writes.
#
# Only the indexes are dropped: Django's AlterField(db_index=False) would also drop and re-add
# the foreign keys, re-checking every observation under a lock for nothing.

import django.db.models.deletion
from django.db import migrations, models

_INDEXES = {
    "curation_observation_paper_id_29a19155": "paper_id",
    "curation_observation_cited_paper_id_d5415523": "cited_paper_id",
}


class Migration(migrations.Migration):

    dependencies = [
        ('curation', '0006_observation_undecided_queue_index'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='observation',
            name='obs_cited_paper',
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='observation',
                    name='cited_paper',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='cited_by', to='curation.paper'),
                ),
                migrations.AlterField(
                    model_name='observation',
                    name='paper',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='outbound', to='curation.paper'),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    sql=[f'DROP INDEX IF EXISTS "{name}"' for name in _INDEXES],
                    reverse_sql=[
                        f'CREATE INDEX IF NOT EXISTS "{name}" ON "curation_observation" ("{column}")'
                        for name, column in _INDEXES.items()
                    ],
                ),
            ],
        ),
    ]
