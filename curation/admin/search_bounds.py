"""Bound what an admin search may ask: ADMIN_SEARCH_MAX_TERMS words, ADMIN_SEARCH_MAX_CHARS
characters.

Each word of an admin search is one more condition over every search field (an OR of ILIKEs,
or an index probe), so a search of 2,000 words held a web process for 24 s. The bound is applied
to the request, before any changelist reads it, so it holds for every model admin with a search
box, those of third-party apps (users, groups, login attempts) included, and for the
autocomplete lookups of foreign-key widgets. The changelist then shows the search it ran in its
box, and a message says that it was cut.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.main import SEARCH_VAR
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.text import smart_split

# The admin's autocomplete view (select2 widgets) searches with this parameter.
AUTOCOMPLETE_VAR = "term"


def bounded_search(term: str, *, max_terms: int, max_chars: int) -> tuple[str, str]:
    """Return (the search to run, why it was cut, or "" when it was not)."""
    why = ""
    if len(term) > max_chars:
        term, why = term[:max_chars], f"its first {max_chars} characters"
    words = list(smart_split(term))  # as ModelAdmin.get_search_results splits it
    if len(words) > max_terms:
        term, why = " ".join(words[:max_terms]), f"its first {max_terms} words"
    return term, why


class AdminSearchBoundMiddleware:
    """Cut an admin search past its bounds, and tell the curator it was cut."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.admin_prefix = ""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self.admin_prefix:  # the URLconf is ready only once a request comes
            self.admin_prefix = reverse("admin:index")
        if request.path.startswith(self.admin_prefix):
            self.bound(request, SEARCH_VAR, tell=True)
            self.bound(request, AUTOCOMPLETE_VAR, tell=False)
        return self.get_response(request)

    def bound(self, request: HttpRequest, name: str, *, tell: bool) -> None:
        """Replace the request's search parameter `name` by its bounded form."""
        term = request.GET.get(name)
        if not term:
            return
        cut, why = bounded_search(
            term,
            max_terms=settings.ADMIN_SEARCH_MAX_TERMS,
            max_chars=settings.ADMIN_SEARCH_MAX_CHARS,
        )
        if not why:
            return
        query = request.GET.copy()
        query[name] = cut
        query._mutable = False  # read-only, as Django hands it to views (the stubs cannot say)
        request.GET = query  # type: ignore[assignment]
        if tell:
            messages.warning(
                request,
                f"The search was too long: only {why} were searched "
                "(ADMIN_SEARCH_MAX_TERMS, ADMIN_SEARCH_MAX_CHARS).",
            )
