"""API tokens, kept as a keyed digest of their key: a leaked database or backup holds no key,
and the database password alone cannot put in a digest for a key of one's own choosing.

A key is shown once, when it is issued (the admin's "API tokens" page, or DRF's
`manage.py drf_create_token USER`); citerec keeps its first characters, to find it and to name
it on screen, and its digest. Asking again issues a new key and revokes the old one (one token
per user, as DRF's).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone
from django.utils.crypto import salted_hmac
from rest_framework.authtoken.models import Token

PREFIX_LENGTH = 8


# What the digests' HMAC key is derived from SECRET_KEY for (django.utils.crypto.salted_hmac);
# api/migrations/0002_token_digests_keyed.py keeps a copy.
DIGEST_SALT = "citerec.api.ApiToken.digest"


def key_digest(key: str) -> str:
    """Return the stored form of a key: HMAC-SHA256 of its SHA-256 (hex), hex.

    Keys are 160 random bits, so nothing needs slowing down; the HMAC, under a key derived from
    SECRET_KEY, is there because the runtime database role may write this table (the admin
    issues tokens through it), and a plain hash would let that password choose a key for any
    curator. The SHA-256 inside is what tokens were stored as before: api 0002 re-keyed those
    digests in place, so their keys still work.
    """
    sha256 = hashlib.sha256(key.encode()).hexdigest()
    return salted_hmac(DIGEST_SALT, sha256, algorithm="sha256").hexdigest()


class ApiToken(models.Model):
    """A user's API token: the first characters of its key and the key's keyed digest."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token"
    )
    prefix = models.CharField(
        max_length=PREFIX_LENGTH, db_index=True, help_text="The key's first characters."
    )
    digest = models.CharField(
        max_length=64, unique=True, help_text="HMAC-SHA256 of the key's SHA-256, hex."
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "API token"
        verbose_name_plural = "API tokens"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @classmethod
    def store(cls, *, user: Any, key: str) -> ApiToken:
        """Keep key (hashed) as user's token, replacing the one the user had."""
        token, _ = cls.objects.update_or_create(
            user=user,
            defaults={
                "prefix": key[:PREFIX_LENGTH],
                "digest": key_digest(key),
                "created_at": timezone.now(),
            },
        )
        return token

    @classmethod
    def issue(cls, *, user: Any) -> str:
        """Issue a new key to user (revoking the previous one) and return it: shown once."""
        key = Token.generate_key()
        cls.store(user=user, key=key)
        return key

    @classmethod
    def find(cls, key: str) -> ApiToken | None:
        """Return the token whose key this is, or None."""
        if len(key) < PREFIX_LENGTH:
            return None
        digest = key_digest(key)
        candidates = cls.objects.select_related("user").filter(prefix=key[:PREFIX_LENGTH])
        # Compared in constant time: the prefix narrows the rows, the digest decides.
        return next((t for t in candidates if hmac.compare_digest(t.digest, digest)), None)


@receiver(post_save, sender=Token)
def _hash_plain_token(sender: type[Token], instance: Token, **kwargs: Any) -> None:
    """Keep a DRF Token's key hashed and delete its plain row, in the same transaction.

    Whatever issues a DRF Token (`manage.py drf_create_token`, code or tests calling
    Token.objects.create) still hands its caller the key, but no key outlives the transaction
    in the database: only ApiToken's digest is kept, and authentication reads only that.
    """
    with transaction.atomic():
        ApiToken.store(user=instance.user, key=instance.key)
        Token.objects.filter(pk=instance.pk).delete()
