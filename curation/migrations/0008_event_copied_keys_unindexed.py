# History events keep copies of their row's foreign keys without indexes (settings.py,
# PGHISTORY_FOREIGN_KEY_FIELD): history is read by object, context, label and time, and each index
# cost an insert per event row on every resolver chunk. The event keys carry no database
# constraint (pghistory), so this drops indexes only (see `sqlmigrate`).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0007_observation_paper_indexes_covered"),
    ]

    operations = [
        migrations.AlterField(
            model_name="externalcitationmeasurementevent",
            name="paper",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="curation.paper",
            ),
        ),
        migrations.AlterField(
            model_name="observationevent",
            name="cited_paper",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="curation.paper",
            ),
        ),
        migrations.AlterField(
            model_name="observationevent",
            name="cited_work",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="curation.citedwork",
            ),
        ),
        migrations.AlterField(
            model_name="observationevent",
            name="paper",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="curation.paper",
            ),
        ),
        migrations.AlterField(
            model_name="resolutionevent",
            name="observation",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                serialize=False,
                to="curation.observation",
            ),
        ),
        migrations.AlterField(
            model_name="standingnoticeevent",
            name="observation",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                serialize=False,
                to="curation.observation",
            ),
        ),
    ]
