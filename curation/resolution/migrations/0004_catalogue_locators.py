"""Journal locators of the catalogues: venue keys, volume and first page (journal-ref matching).

Existing rows get empty locators; re-importing the arXiv snapshot and the Crossref works fills
them (the import writes locators for unchanged lines too).
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Q


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0002_catalogue_fields"),
        ("resolution", "0003_run_chunk_leases"),
    ]

    operations = [
        migrations.AddField(
            model_name="crossrefwork",
            name="venue_key",
            field=models.CharField(blank=True, default="", max_length=128),
        ),
        migrations.AddField(
            model_name="crossrefwork",
            name="short_venue_key",
            field=models.CharField(blank=True, default="", max_length=128),
        ),
        migrations.AddField(
            model_name="crossrefwork",
            name="volume",
            field=models.CharField(blank=True, default="", max_length=32),
        ),
        migrations.AddField(
            model_name="crossrefwork",
            name="first_page",
            field=models.CharField(blank=True, default="", max_length=32),
        ),
        migrations.AddIndex(
            model_name="crossrefwork",
            index=models.Index(
                condition=~Q(volume=""), fields=["volume", "first_page"], name="crossref_locator"
            ),
        ),
        migrations.CreateModel(
            name="PaperLocator",
            fields=[
                (
                    "paper",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="locator",
                        serialize=False,
                        to="curation.paper",
                    ),
                ),
                ("venue_key", models.CharField(max_length=128)),
                ("volume", models.CharField(max_length=32)),
                ("first_page", models.CharField(max_length=32)),
                ("year", models.SmallIntegerField(blank=True, null=True)),
            ],
            options={
                "indexes": [models.Index(fields=["volume", "first_page"], name="paper_locator")],
            },
        ),
    ]
