# History events keep copies of their row's foreign keys without indexes (settings.py,
# PGHISTORY_FOREIGN_KEY_FIELD): history is read by object, context, label and time, and each index
# cost an insert per event row on every resolver chunk. The event keys carry no database
# constraint (pghistory), so this drops indexes only (see `sqlmigrate`).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0008_event_copied_keys_unindexed"),
        ("notices", "0004_review_revision"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="noticeeventevent",
            name="work",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="curation.citedwork",
            ),
        ),
        migrations.AlterField(
            model_name="noticereviewevent",
            name="event",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="notices.noticeevent",
            ),
        ),
        migrations.AlterField(
            model_name="noticereviewevent",
            name="reviewer",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="sourcereceiptevent",
            name="work",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="curation.citedwork",
            ),
        ),
    ]
