"""Curation through the API: link an observation or set its state, with a reason.

Thin callers of curation.services.observations, so an API decision is pinned, audited (source
"api", the user, the reason) and refuses a stale revision exactly as the admin does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from curation.audit import Actor, MissingReason
from curation.models import Observation
from curation.services.observations import (
    CurationError,
    StaleRevision,
    observation_link_arxiv,
    observation_set_state,
)
from curation.states import VERIFIED_STATUSES, ChangeSource, ResolutionStatus

from ..caching import PRIVATE
from ..permissions import IsCurator
from ..representations import observation_json
from ..schema import AUTH_ERRORS, ERROR_BODY, ERRORS
from ..serializers import ObservationSerializer
from .observations import observations


class Conflict(APIException):
    """The observation changed since the curator saw it."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "stale_revision"


class _Decision(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=2000, help_text="Why (kept in the history).")
    revision = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="The revision you saw; a newer one gives 409 instead of overwriting.",
    )


class LinkInput(_Decision):
    """Link to a known arXiv paper (verified_exact, pinned)."""

    arxiv_id = serializers.CharField(max_length=64)


class StateInput(_Decision):
    """Set a non-verified state (unlinks any cited paper, pinned)."""

    status = serializers.ChoiceField(
        choices=[s for s in ResolutionStatus.values if s not in VERIFIED_STATUSES]
    )


def api_actor(request: Request) -> Actor:
    """Return the history actor of an API request."""
    user = request.user
    return Actor(name=f"user:{user.get_username()}", source=ChangeSource.API, user_id=user.pk)


class _CurationView(APIView):
    permission_classes = [IsCurator]
    input_class: type[_Decision] = _Decision

    def decide(self, observation: Observation, data: dict[str, Any], actor: Actor) -> None:
        raise NotImplementedError

    def post(self, request: Request, pk: str) -> Response:
        """Apply the decision and answer the observation as it now stands."""
        observation = get_object_or_404(Observation, pk=pk)
        form = self.input_class(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            self.decide(observation, form.validated_data, api_actor(request))
        except StaleRevision as exc:
            raise Conflict({"message": str(exc), "current_revision": exc.current}) from exc
        except (CurationError, MissingReason) as exc:
            raise ValidationError({"decision": str(exc)}) from exc
        body = observation_json(observations().get(pk=observation.pk))
        return Response(body, headers={"Cache-Control": PRIVATE})


def _documented(summary: str, body: type[_Decision]) -> Callable[[Any], Any]:
    return extend_schema(
        summary=summary,
        request=body,
        responses={
            200: ObservationSerializer,
            409: OpenApiResponse(ERROR_BODY, description="Stale revision"),
            **AUTH_ERRORS,
            **ERRORS,
        },
    )


class ObservationLink(_CurationView):
    """Link an observation to a known arXiv paper (Curators only)."""

    input_class = LinkInput

    @_documented("Link an observation to an arXiv paper (Curators)", LinkInput)
    def post(self, request: Request, pk: str) -> Response:
        """Link, pin and audit."""
        return super().post(request, pk)

    def decide(self, observation: Observation, data: dict[str, Any], actor: Actor) -> None:
        """Link through the curation service."""
        observation_link_arxiv(
            observation=observation,
            arxiv_id=data["arxiv_id"],
            expected_revision=data.get("revision"),
            actor=actor,
            reason=data["reason"],
        )


class ObservationState(_CurationView):
    """Set an observation's (non-verified) state (Curators only)."""

    input_class = StateInput

    @_documented("Set an observation's state (Curators)", StateInput)
    def post(self, request: Request, pk: str) -> Response:
        """Set the state, pin and audit."""
        return super().post(request, pk)

    def decide(self, observation: Observation, data: dict[str, Any], actor: Actor) -> None:
        """Set the state through the curation service."""
        observation_set_state(
            observation=observation,
            status=data["status"],
            expected_revision=data.get("revision"),
            actor=actor,
            reason=data["reason"],
        )
