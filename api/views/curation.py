"""Curation through the API: link an observation or set its state, with a reason.

Thin callers of curation.services.observations, so an API decision is pinned, audited (source
"api", the user, the reason) and refuses a stale revision exactly as the admin does. Every
decision names the revision its author saw (`revision` in the body or an `If-Match: "<n>"`
header; 428 without either); a stale one is a 409 saying who changed it, when and why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from curation.audit import Actor, MissingReason
from curation.models import Observation
from curation.selectors import observation_by_pk, observation_with_parts
from curation.services.observations import (
    CurationError,
    StaleRevision,
    observation_link_arxiv,
    observation_link_doi,
    observation_set_state,
)
from curation.states import VERIFIED_STATUSES, ChangeSource, ResolutionStatus

from ..caching import PRIVATE
from ..errors import NO_STORE, error_body
from ..permissions import IsCurator
from ..schema import AUTH_ERRORS, ERROR_BODY, ERRORS
from ..serializers.observations import ObservationSerializer, observation_json
from ..serializers.stale import StaleRevisionResponseSerializer


class RevisionRequired(APIException):
    """A decision that does not say which revision its author saw."""

    status_code = status.HTTP_428_PRECONDITION_REQUIRED
    default_code = "revision_required"
    default_detail = (
        'Say which revision you decided on: "revision" in the body or an If-Match: "<revision>" '
        "header (the observation's `revision` field)."
    )


class _Decision(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=2000, help_text="Why (kept in the history).")
    revision = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text=(
            "The revision you saw (the observation's `revision`); required unless sent as "
            'If-Match: "<revision>". A newer stored revision gives 409 instead of overwriting.'
        ),
    )


class LinkInput(_Decision):
    """Link to a known arXiv paper or a known DOI (verified_exact, pinned): name one of them."""

    arxiv_id = serializers.CharField(max_length=64, required=False)
    doi = serializers.CharField(
        max_length=256,
        required=False,
        help_text=(
            "A DOI citerec knows: an arXiv DOI of a catalogue paper, a local Crossref work, or "
            "(online) one Crossref knows. An unknown DOI is refused and nothing is written."
        ),
    )

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        """Refuse a link that names neither or both of an arXiv id and a DOI."""
        if bool(data.get("arxiv_id")) == bool(data.get("doi")):
            raise ValidationError({"arxiv_id": "name exactly one of arxiv_id and doi"})
        return data


class StateInput(_Decision):
    """Set a non-verified state (unlinks any cited paper, pinned)."""

    status = serializers.ChoiceField(
        choices=[s for s in ResolutionStatus.values if s not in VERIFIED_STATUSES]
    )


def if_match_revision(request: Request) -> int | None:
    """Return the revision an If-Match header names (`"7"`, `W/"7"` or `7`), or None."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    value = header.strip().removeprefix("W/").strip('"')
    if not value.isdigit() or int(value) < 1:
        raise ValidationError(
            {"If-Match": f'expected "<revision>", a positive integer; got {header!r}'}
        )
    return int(value)


def expected_revision(request: Request, data: dict[str, Any]) -> int:
    """Return the revision the author saw, from the body or If-Match; refuse a request without."""
    in_body, in_header = data.get("revision"), if_match_revision(request)
    if in_body is not None and in_header is not None and in_body != in_header:
        raise ValidationError(
            {"revision": f"the body says {in_body}, If-Match says {in_header}: send one"}
        )
    revision = in_body if in_body is not None else in_header
    if revision is None:
        raise RevisionRequired()
    return int(revision)


class _CurationView(APIView):
    permission_classes = [IsCurator]
    input_class: type[_Decision] = _Decision

    def decide(
        self, observation: Observation, data: dict[str, Any], revision: int, actor: Actor
    ) -> None:
        raise NotImplementedError

    def post(self, request: Request, pk: str) -> Response:
        """Apply the decision and answer the observation as it now stands."""
        observation = observation_by_pk(pk)
        if observation is None:
            raise Http404("No Observation matches the given query.")  # Django's wording, as before
        form = self.input_class(data=request.data)
        form.is_valid(raise_exception=True)
        revision = expected_revision(request, form.validated_data)
        try:
            actor = Actor.for_user(request.user, ChangeSource.API)
            self.decide(observation, form.validated_data, revision, actor)
        except StaleRevision as exc:
            # Built here, not raised: DRF would turn the integers of the detail into strings.
            body = error_body(status.HTTP_409_CONFLICT, "stale_revision", exc.detail())
            return Response(body, status=409, headers={"Cache-Control": NO_STORE})
        except (CurationError, MissingReason) as exc:
            raise ValidationError({"decision": str(exc)}) from exc
        body = observation_json(observation_with_parts(observation.pk))
        return Response(body, headers={"Cache-Control": PRIVATE})


IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description='The revision you saw, as "<revision>" (instead of `revision` in the body).',
)


def _documented(summary: str, body: type[_Decision]) -> Callable[[Any], Any]:
    return extend_schema(
        summary=summary,
        request=body,
        parameters=[IF_MATCH],
        responses={
            200: ObservationSerializer,
            409: OpenApiResponse(
                StaleRevisionResponseSerializer,
                description="Stale revision: someone changed the observation since you saw it",
            ),
            428: OpenApiResponse(
                ERROR_BODY, description="Neither `revision` nor If-Match says what you saw"
            ),
            **AUTH_ERRORS,
            **ERRORS,
        },
    )


class ObservationLink(_CurationView):
    """Link an observation to a known arXiv paper or DOI (Curators only)."""

    input_class = LinkInput

    @_documented("Link an observation to an arXiv paper or a DOI (Curators)", LinkInput)
    def post(self, request: Request, pk: str) -> Response:
        """Link, pin and audit."""
        return super().post(request, pk)

    def decide(
        self, observation: Observation, data: dict[str, Any], revision: int, actor: Actor
    ) -> None:
        """Link through the curation services (the DOI rule is the DOI service's own)."""
        common = {"expected_revision": revision, "actor": actor, "reason": data["reason"]}
        if data.get("arxiv_id"):
            observation_link_arxiv(observation=observation, arxiv_id=data["arxiv_id"], **common)
        else:
            observation_link_doi(observation=observation, doi=data["doi"], **common)


class ObservationState(_CurationView):
    """Set an observation's (non-verified) state (Curators only)."""

    input_class = StateInput

    @_documented("Set an observation's state (Curators)", StateInput)
    def post(self, request: Request, pk: str) -> Response:
        """Set the state, pin and audit."""
        return super().post(request, pk)

    def decide(
        self, observation: Observation, data: dict[str, Any], revision: int, actor: Actor
    ) -> None:
        """Set the state through the curation service."""
        observation_set_state(
            observation=observation,
            status=data["status"],
            expected_revision=revision,
            actor=actor,
            reason=data["reason"],
        )
