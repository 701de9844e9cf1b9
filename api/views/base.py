"""What every API view shares: strict query parameters, cache headers, and cached list pages."""

from __future__ import annotations

import builtins
from typing import Any

import orjson
from django.core.exceptions import EmptyResultSet
from django.db import DatabaseError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from rest_framework import generics
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from curation.record.http import etag_matches
from curation.record.revalidation import anonymous_and_allowed, throttled_already

from ..caching import LIST, conditional_response
from ..page_cache import (
    Marker,
    Page,
    RowsMarker,
    cached_body,
    page_for,
    remember,
    remembered,
    same_snapshot,
    store_body,
)
from ..pagination import PAGE_PARAMS, cursor_errors
from ..params import check_query_params

JSON_CONTENT_TYPE = "application/json"  # what DRF's JSONRenderer answers
# The free-text filter of a list (papers?search=): its pages are cached for a short life only.
SEARCH = "search"


class StrictParamsMixin:
    """Refuse unknown query parameters before doing any work."""

    extra_params: frozenset[str] = frozenset()
    filterset_class: Any = None

    def allowed_params(self) -> set[str]:
        """Return the query parameters this view understands."""
        names = set(self.extra_params)
        if self.filterset_class is not None:
            names |= set(self.filterset_class.base_filters)
        return names

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        """Authenticate, check permissions and throttles, then the parameters."""
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        check_query_params(request, self.allowed_params())


class ListView(StrictParamsMixin, generics.ListAPIView):  # type: ignore[type-arg]
    """A filtered, cursor-paginated list."""

    cache_control = LIST

    def allowed_params(self) -> set[str]:
        """Return the filters and the paging parameters."""
        return super().allowed_params() | PAGE_PARAMS

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the page with the list's Cache-Control."""
        response = super().list(request, *args, **kwargs)
        response["Cache-Control"] = self.cache_control
        return response

    # builtins.list: in this class `list` names DRF's list() method.
    def rows_json(self, rows: builtins.list[Any]) -> builtins.list[Any]:
        """Return the page's rows as the API shows them (views with a plain function say so)."""
        return list(self.get_serializer(rows, many=True).data)


class CachedListView(ListView):
    """A public list whose pages are cached under a marker of their rows (api/page_cache.py).

    Anonymous reads of a query this process already answered skip DRF: the same throttles, the
    same bytes and headers, a fraction of the CPU. Anything else takes DRF's path, which
    validates, builds or fetches the page, answers it and remembers the query for next time.
    Only public data may be listed by such a view: a cached page is served to anyone.
    """

    def page_marker(self, page: QuerySet[Any]) -> Marker | None:
        """Return what tells whether a cached page is current: by default its rows' digest."""
        try:
            return RowsMarker.of(page)
        except EmptyResultSet:  # a filter Django knows matches nothing: nothing worth caching
            return None

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        """Answer a remembered anonymous read from the cache, anything else through DRF."""
        if request.method in ("GET", "HEAD") and not _wants_html(request, self):
            marker = remembered(request.path, request.META.get("QUERY_STRING", ""))
            if marker is not None and anonymous_and_allowed(request.META):
                cached = self._from_cache(request, marker)
                if cached is not None:
                    self.headers = self.default_response_headers
                    for key, value in self.headers.items():
                        cached[key] = value
                    return cached
        response: HttpResponseBase = super().dispatch(request, *args, **kwargs)
        return response

    def check_throttles(self, request: Request) -> None:
        """Throttle as DRF does, unless this request was already counted before DRF."""
        if not throttled_already(request._request.META):
            super().check_throttles(request)

    def _from_cache(self, request: HttpRequest, marker: Marker) -> HttpResponse | None:
        try:
            value = marker.read()
        except DatabaseError:  # DRF's path answers (and reports) it
            return None
        if value is None:
            return None
        page = page_for(request.build_absolute_uri(), value)
        if etag_matches(request, page.etag):
            return _not_modified(page, self.cache_control)
        body = cached_body(page)
        return None if body is None else _page_response(page, body, self.cache_control)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the page: 304 when the client has it, else cached or built bytes."""
        if not isinstance(request.accepted_renderer, JSONRenderer):  # the browsable API (DEBUG)
            return super().list(request, *args, **kwargs)
        paginator = self.paginator
        assert paginator is not None and hasattr(paginator, "page_queryset")
        queryset = paginator.page_queryset(self.filter_queryset(self.get_queryset()), request, self)
        marker = self.page_marker(queryset)
        if marker is None:
            return super().list(request, *args, **kwargs)
        with same_snapshot(marker):
            with cursor_errors():
                value = marker.read()
            if value is None:
                return super().list(request, *args, **kwargs)
            remember(request.path, request.META.get("QUERY_STRING", ""), marker)
            page = page_for(request.build_absolute_uri(), value)
            if etag_matches(request, page.etag):
                return _not_modified(page, self.cache_control)  # type: ignore[return-value]
            body = cached_body(page)
            if body is None:
                with cursor_errors():
                    rows = list(queryset)
                data = paginator.page_data(self.rows_json(paginator.take(rows)))
                body = orjson.dumps(data)
                store_body(page, body, searched=bool(request.query_params.get(SEARCH)))
        return _page_response(page, body, self.cache_control)  # type: ignore[return-value]


def _wants_html(request: HttpRequest, view: Any) -> bool:
    """Return whether DRF might answer HTML (the browsable API is on and the client takes it)."""
    return len(view.renderer_classes) > 1 and "html" in request.META.get("HTTP_ACCEPT", "")


def _page_response(page: Page, body: bytes, cache_control: str) -> HttpResponse:
    response = HttpResponse(body, content_type=JSON_CONTENT_TYPE)
    response["ETag"] = page.etag
    response["Cache-Control"] = cache_control
    return response


def _not_modified(page: Page, cache_control: str) -> HttpResponse:
    response = HttpResponseNotModified()
    response["ETag"] = page.etag
    response["Cache-Control"] = cache_control
    return response


class DetailView(StrictParamsMixin, generics.RetrieveAPIView):  # type: ignore[type-arg]
    """One object, with an ETag and 304 answers."""

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the object, or 304 when the client already has this version."""
        serializer = self.get_serializer(self.get_object())
        return conditional_response(request, serializer.data)
