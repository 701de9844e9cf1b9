"""The resolver measured by its curators (issue 41 item 3): how many of its verdicts curators
checked and overturned, and its estimated precision with an interval. Anyone may read it: no
catalogue tells its users how often its automatic links are wrong; this one does."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from curation.resolution.selectors import resolver_precision

from ..caching import conditional_response
from ..params import check_query_params
from ..schema import ERRORS
from ..serializers.precision import ResolverPrecisionSerializer, precision_json


class ResolverPrecisionView(APIView):
    """Per resolver step and state, per probability band and overall: verdicts checked,
    overturned, and the precision estimate, for sampled links and for those that came to
    curators apart."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="The resolver's precision as its curators measured it",
        responses={200: ResolverPrecisionSerializer, 304: None, **ERRORS},
    )
    def get(self, request: Request) -> Response:
        """Answer the figures (weak ETag: 304 while no label or sample changed them)."""
        check_query_params(request, ())
        return conditional_response(request, precision_json(resolver_precision()))
