"""The issue of a Crossref work, compared with the issue a reference gives
(curation.resolution.conflicts). Existing rows get "" (a constant default: no table rewrite);
re-importing the works fills it."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('resolution', '0006_crossref_arxiv_versions'),
    ]

    operations = [
        migrations.AddField(
            model_name='crossrefwork',
            name='issue',
            field=models.CharField(blank=True, default='', help_text='As Crossref gives it', max_length=32),
        ),
    ]
