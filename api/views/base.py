"""What every API view shares: strict query parameters and cache headers."""

from __future__ import annotations

from typing import Any

from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from ..caching import LIST, conditional_response
from ..pagination import PAGE_PARAMS
from ..params import check_query_params


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


class DetailView(StrictParamsMixin, generics.RetrieveAPIView):  # type: ignore[type-arg]
    """One object, with an ETag and 304 answers."""

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Answer the object, or 304 when the client already has this version."""
        serializer = self.get_serializer(self.get_object())
        return conditional_response(request, serializer.data)
