"""Link a reference to a work the local catalogues lack: fetch it (arXiv OAI-PMH GetRecord, or
Crossref by DOI), store it in the catalogue and link it, all or nothing.

The source is asked before any transaction opens (a slow answer must hold no row lock); the
catalogue entry and the link are then written in one transaction inside one audit context, so a
refused link (someone changed the reference meanwhile) leaves no catalogue entry behind either.
Offline (CITEREC_OFFLINE=1) nothing is asked and the refusal says so.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from curation.audit import Actor, audited
from curation.catalogue import records as catalogue
from curation.clients.arxiv import ArxivClient, ArxivError, ArxivNotFound, ArxivOffline
from curation.clients.arxiv.metadata import ArxivMetadata
from curation.clients.crossref import CrossrefClient, CrossrefError, CrossrefOffline
from curation.models import Observation, Paper
from curation.references.identifiers import arxiv_id_from_doi
from curation.resolution.services.catalogue_imports import store_crossref_works
from curation.services.observations import (
    CurationError,
    observation_link_arxiv,
    observation_link_doi,
)

from .metadata import metadata_store

# A curator waits for the answer in the browser: one short try and one retry, not a worker's
# ten-minute patience.
_ARXIV_TIMEOUT = 20.0
_CROSSREF_TIMEOUT = 10.0


class FetchRefused(CurationError):
    """The work could not be fetched: nothing was saved (the message says why)."""

    retry = False


class FetchOffline(FetchRefused):
    """Offline mode is on: the source was not asked."""


class FetchFailed(FetchRefused):
    """The source could not be reached or gave an unreadable answer: trying again may work."""

    retry = True


def source_of(identifier: tuple[str, str]) -> str:
    """Return the name of the source a missing work would be fetched from."""
    scheme, value = identifier
    return "arXiv" if scheme == "arxiv" or arxiv_id_from_doi(value) else "Crossref"


def is_catalogued(identifier: tuple[str, str]) -> bool:
    """Return whether the work is known locally (arXiv catalogue and records, local Crossref)."""
    scheme, value = identifier
    arxiv_id = value if scheme == "arxiv" else arxiv_id_from_doi(value)
    if arxiv_id:
        return Paper.objects.filter(arxiv_id__iexact=arxiv_id).exists()
    return bool(catalogue.works_by_doi([value]))


def observation_fetch_and_link(
    *,
    observation: Observation,
    identifier: tuple[str, str],
    expected_revision: int,
    actor: Actor,
    reason: str,
    arxiv: ArxivClient | None = None,
    crossref: CrossrefClient | None = None,
) -> Observation:
    """Fetch the work into the catalogue if it is missing, then link the observation to it.

    `identifier` is ("arxiv", id) or ("doi", doi), as curation.admin.forms.parse_identifier
    returns it; an arXiv DOI is fetched from arXiv.
    """
    scheme, value = identifier
    value = value.strip() if scheme == "arxiv" else value.strip().lower()
    arxiv_id = value if scheme == "arxiv" else arxiv_id_from_doi(value)
    fetched: ArxivMetadata | dict[str, Any] | None = None
    if not is_catalogued((scheme, value)):
        fetched = _fetch_arxiv(arxiv_id, arxiv) if arxiv_id else _fetch_crossref(value, crossref)
    return _store_and_link(observation, scheme, value, fetched, expected_revision, actor, reason)


@transaction.atomic
def _store_and_link(
    observation: Observation,
    scheme: str,
    value: str,
    fetched: ArxivMetadata | dict[str, Any] | None,
    expected_revision: int,
    actor: Actor,
    reason: str,
) -> Observation:
    with audited(actor, reason):
        if isinstance(fetched, ArxivMetadata):
            metadata_store(items=[fetched], actor=actor, reason=reason)
        elif fetched is not None:
            store_crossref_works([fetched])
        if scheme == "arxiv":
            return observation_link_arxiv(
                observation=observation,
                arxiv_id=value,
                expected_revision=expected_revision,
                actor=actor,
                reason=reason,
            )
        return observation_link_doi(
            observation=observation,
            doi=value,
            expected_revision=expected_revision,
            actor=actor,
            reason=reason,
        )


def _fetch_arxiv(arxiv_id: str, client: ArxivClient | None) -> ArxivMetadata:
    """Return the paper's arXiv metadata, or raise FetchRefused saying why."""
    refused = f"The link to arXiv:{arxiv_id} was not saved"
    if settings.CITEREC_OFFLINE:
        raise FetchOffline(
            f"{refused}: it is not in the local catalogue, and citerec is offline "
            "(CITEREC_OFFLINE=1), so arXiv was not asked."
        )
    own = client is None
    client = client or ArxivClient(
        timeout=min(settings.ARXIV_TIMEOUT, _ARXIV_TIMEOUT), max_retries=1
    )
    try:
        metadata = client.metadata(arxiv_id)
    except ArxivOffline as exc:
        raise FetchOffline(f"{refused}: citerec is offline ({exc}).") from exc
    except ArxivNotFound as exc:
        raise FetchRefused(f"{refused}: arXiv has no such paper ({exc}).") from exc
    except ArxivError as exc:
        raise FetchFailed(
            f"{refused}: arXiv could not be reached ({exc}). Try again later."
        ) from exc
    finally:
        if own:
            client.close()
    if not metadata.title.strip():
        raise FetchRefused(f"{refused}: arXiv's record of it has no title.")
    return metadata


def _fetch_crossref(doi: str, client: CrossrefClient | None) -> dict[str, Any]:
    """Return Crossref's work for the DOI, or raise FetchRefused saying why."""
    refused = f"The link to doi:{doi} was not saved"
    if settings.CITEREC_OFFLINE:
        raise FetchOffline(
            f"{refused}: it is not in the local Crossref catalogue, and citerec is offline "
            "(CITEREC_OFFLINE=1), so Crossref was not asked."
        )
    own = client is None
    client = client or CrossrefClient(timeout=_CROSSREF_TIMEOUT, max_retries=1)
    try:
        work = client.work(doi)
    except CrossrefOffline as exc:
        raise FetchOffline(f"{refused}: citerec is offline ({exc}).") from exc
    except CrossrefError as exc:
        raise FetchFailed(
            f"{refused}: Crossref could not be reached ({exc}). Try again later."
        ) from exc
    finally:
        if own:
            client.close()
    if work is None:
        raise FetchRefused(f"{refused}: Crossref does not know it either.")
    if str(work.get("DOI") or "").lower() != doi:
        raise FetchRefused(f"{refused}: Crossref answered with another DOI ({work.get('DOI')!r}).")
    return work
