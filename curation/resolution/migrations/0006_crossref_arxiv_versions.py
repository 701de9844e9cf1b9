"""The arXiv versions Crossref's `relation` names for a work (curation.catalogue.versions).

Existing rows get an empty list (a constant default: no table rewrite); re-importing the
Crossref works fills it. The GIN index is partial and written directly (fastupdate off): only
the few works naming a version are in it, and bulk imports leave it no pending list to grow.
"""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("resolution", "0005_catalogue_settle_function")]

    operations = [
        migrations.AddField(
            model_name="crossrefwork",
            name="arxiv_versions",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=300),
                blank=True,
                default=list,
                help_text="arXiv versions from Crossref `relation` (has-preprint / is-preprint-of)",
                size=None,
            ),
        ),
        migrations.AddIndex(
            model_name="crossrefwork",
            index=django.contrib.postgres.indexes.GinIndex(
                condition=models.Q(("arxiv_versions", []), _negated=True),
                fastupdate=False,
                fields=["arxiv_versions"],
                name="crossref_arxiv_versions",
            ),
        ),
    ]
