"""Token digests become keyed: HMAC-SHA256 (key derived from SECRET_KEY) of the SHA-256 stored.

The runtime database role may write api_apitoken, and with plain SHA-256 digests its password
alone let anyone write the digest of a key of their own choosing over a curator's token. The
keyed digest is made from the SHA-256 already stored, so every existing key keeps working with
no one asked to reissue it. Run with the deployment's SECRET_KEY: tokens are bound to it (a new
SECRET_KEY means issuing every token again: README "API tokens, pages and browsers").
"""

from django.db import migrations, models
from django.utils.crypto import salted_hmac

DIGEST_SALT = "citerec.api.ApiToken.digest"  # as api.models: a migration keeps its own copy


def key_the_digests(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Replace every SHA-256 digest with its HMAC under this deployment's token key."""
    ApiToken = apps.get_model("api", "ApiToken")
    for token in ApiToken.objects.all().iterator():
        token.digest = salted_hmac(DIGEST_SALT, token.digest, algorithm="sha256").hexdigest()
        token.save(update_fields=["digest"])


class Migration(migrations.Migration):
    dependencies = [("api", "0001_initial")]

    operations = [
        migrations.AlterField(
            model_name="apitoken",
            name="digest",
            field=models.CharField(
                help_text="HMAC-SHA256 of the key's SHA-256, hex.", max_length=64, unique=True
            ),
        ),
        # An HMAC cannot be undone: going back leaves tokens to be issued again.
        migrations.RunPython(key_the_digests, migrations.RunPython.noop),
    ]
