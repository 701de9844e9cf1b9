"""The admin's API tokens: issue a user's token (its key shown once), list and revoke them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from rest_framework.authtoken.models import Token, TokenProxy

from .models import PREFIX_LENGTH, ApiToken, key_digest

# DRF's token page lists plain keys; none are stored any more (api/models.py).
if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Issue a token to a user; the key is shown on the next page only, then kept hashed."""

    list_display = ("prefix", "user", "created_at")
    search_fields = ("user__username", "prefix")
    raw_id_fields = ("user",)

    def get_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> tuple[str, ...]:
        """Ask only for the user when issuing; show what is kept afterwards."""
        return ("user",) if obj is None else ("user", "prefix", "created_at")

    def get_readonly_fields(
        self, request: HttpRequest, obj: ApiToken | None = None
    ) -> tuple[str, ...]:
        """Keep an issued token as it is: revoke it (delete) and issue another instead."""
        return () if obj is None else ("user", "prefix", "created_at")

    def has_change_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        """Refuse changes: a token is issued or revoked, never edited."""
        return False

    def save_model(
        self, request: HttpRequest, obj: ApiToken, form: ModelForm[Any], change: bool
    ) -> None:
        """Make a key, keep its digest, and hold the key for this response only."""
        key = Token.generate_key()
        obj.prefix, obj.digest = key[:PREFIX_LENGTH], key_digest(key)
        super().save_model(request, obj, form, change)
        request._issued_api_key = key  # type: ignore[attr-defined]

    def response_add(
        self, request: HttpRequest, obj: ApiToken, post_url_continue: str | None = None
    ) -> HttpResponse:
        """Show the key once, in this response (never in a message cookie or a log)."""
        context = {
            **self.admin_site.each_context(request),
            "title": "API token issued",
            "opts": self.opts,
            "token": obj,
            "key": request._issued_api_key,  # type: ignore[attr-defined]
        }
        # Admin views are never cached (never_cache): the page is not kept by any cache either.
        return TemplateResponse(request, "api/admin/token_issued.html", context)
