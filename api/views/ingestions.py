"""Papers in from arXiv through the API: ask for papers (Curators), read where each stands."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from curation.audit import Actor
from curation.ingestion import selectors
from curation.ingestion.services import ADD_REASON, MAX_IDS, papers_add
from curation.references.identifiers import clean_arxiv_id
from curation.states import ChangeSource

from ..caching import PRIVATE
from ..permissions import IsCurator
from ..schema import AUTH_ERRORS, ERRORS
from ..serializers.ingestions import AddPapersOutput, IngestionSerializer


class AddPapersInput(serializers.Serializer[Any]):
    """arXiv ids to build records for."""

    arxiv_ids = serializers.ListField(
        child=serializers.CharField(max_length=100), min_length=1, max_length=MAX_IDS
    )
    reason = serializers.CharField(max_length=2000, required=False, default=ADD_REASON)
    force = serializers.BooleanField(required=False, default=False)


class IngestionList(APIView):
    """Ask for arXiv papers to be built (Curators only)."""

    permission_classes = [IsCurator]

    @extend_schema(
        summary="Add papers from arXiv (Curators)",
        request=AddPapersInput,
        responses={202: AddPapersOutput, **AUTH_ERRORS, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        """Queue the papers; answer which were queued, already on their way, or refused."""
        form = AddPapersInput(data=request.data)
        form.is_valid(raise_exception=True)
        outcome = papers_add(
            arxiv_ids=form.validated_data["arxiv_ids"],
            actor=Actor.for_user(request.user, ChangeSource.API),
            reason=form.validated_data["reason"],
            force=form.validated_data["force"],
        )
        body = {
            "queued": outcome.queued,
            "active": outcome.active,
            "refused": [{"given": r.given, "why": r.why} for r in outcome.refused],
        }
        code = status.HTTP_202_ACCEPTED if outcome.queued or outcome.active else 400
        return Response(body, status=code, headers={"Cache-Control": PRIVATE})


class IngestionDetail(APIView):
    """Where one paper's ingestion stands (anyone may read it)."""

    @extend_schema(summary="A paper's ingestion state", responses={200: IngestionSerializer, **ERRORS})
    def get(self, request: Request, arxiv_id: str) -> Response:
        """Answer the paper's ingestion, or 404 when citerec was never asked for it."""
        clean = clean_arxiv_id(arxiv_id)
        ingestion = selectors.ingestion_of(clean) if clean else None
        if ingestion is None:
            raise Http404(f"arXiv:{arxiv_id} was never asked for")
        data = IngestionSerializer(ingestion).data
        if not request.user.is_staff:  # the error names endpoints and exceptions: staff only
            data["error"] = selectors.public_reason(ingestion)
        return Response(data, headers={"Cache-Control": PRIVATE})
