"""API tokens stored as SHA-256 digests; DRF's plain tokens are hashed into them and deleted.

Existing tokens keep working: each DRF Token row becomes an ApiToken with its key's prefix and
digest (the same key authenticates), then the plain row is deleted so no key stays stored.
"""

import hashlib

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

PREFIX_LENGTH = 8  # as api.models: a migration keeps its own copy of what it relies on


def hash_plain_tokens(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Replace every plain DRF token with its digest."""
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("api", "ApiToken")
    for token in Token.objects.all().iterator():
        ApiToken.objects.update_or_create(
            user_id=token.user_id,
            defaults={
                "prefix": token.key[:PREFIX_LENGTH],
                "digest": hashlib.sha256(token.key.encode()).hexdigest(),
                "created_at": token.created,
            },
        )
    Token.objects.all().delete()


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "prefix",
                    models.CharField(
                        db_index=True, help_text="The key's first characters.", max_length=8
                    ),
                ),
                (
                    "digest",
                    models.CharField(
                        help_text="SHA-256 of the key, hex.", max_length=64, unique=True
                    ),
                ),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="api_token",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"verbose_name": "API token", "verbose_name_plural": "API tokens"},
        ),
        # Plain keys cannot be brought back: going back leaves tokens to be issued again.
        migrations.RunPython(hash_plain_tokens, migrations.RunPython.noop),
    ]
