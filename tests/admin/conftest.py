"""Personas and data for the curator screens: Alice and Bob curate, Rita only reads,
Nora reviews notices; a small catalogue gives the resolver candidates to propose."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from curation.audit import Actor
from curation.models import Observation, Paper
from curation.permissions import CURATORS, NOTICE_REVIEWERS, READ_ONLY_STAFF, ensure_groups
from curation.references.listed import ListedReference
from curation.services import reference_list_import
from tests.browser import PASSWORD  # one password for every test user

CITING = "2501.00001"
IMPORTER = Actor.importer("test")


def Listed(index: int, label: str | None, raw: str) -> ListedReference:  # noqa: N802 (reads as a type)
    """Return a reference as a format reader yields it."""
    return ListedReference(index, raw, label)


# Two catalogue papers share a title: the resolver cannot choose (unresolved, candidates kept).
CATALOGUE = [
    ("2301.00001", "Silent data corruption in large training runs", "Smith, J.", 2023),
    ("2301.00002", "Silent data corruption in large training runs", "Smith, J.", 2023),
    ("2302.00003", "Checkpointing for fault tolerant deep learning", "Ng, A.", 2023),
    ("2303.00004", "Gradient compression at scale", "Lee, K.", 2023),
]
REFERENCES = [
    "J. Smith. Silent data corruption in large training runs. 2023.",
    # The arXiv id names the compression paper, the title another work: a mismatch.
    "A. Ng. Checkpointing for fault tolerant deep learning. arXiv:2303.00004, 2023.",
    "write newline",
    "NVIDIA. Megatron-LM. https://github.com/ NVIDIA/Megatron- LM/issues/1611",
]


def make_user(username: str, group: str | None, superuser: bool = False) -> Any:
    """Return a staff user in the group."""
    user = get_user_model().objects.create_user(username, f"{username}@example.org", PASSWORD)
    user.is_staff = True
    user.is_superuser = superuser
    user.save()
    if group:
        user.groups.add(Group.objects.get(name=group))
    return user


def logged_in(user: Any) -> Client:
    """Return a client with the user's session."""
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def groups(db: Any) -> None:
    ensure_groups()


@pytest.fixture
def alice(groups: None) -> Client:
    return logged_in(make_user("alice", CURATORS))


@pytest.fixture
def bob(groups: None) -> Client:
    return logged_in(make_user("bob", CURATORS))


@pytest.fixture
def rita(groups: None) -> Client:
    return logged_in(make_user("rita", READ_ONLY_STAFF))


@pytest.fixture
def nora(groups: None) -> Client:
    return logged_in(make_user("nora", NOTICE_REVIEWERS))


@pytest.fixture
def sample(db: Any, sample_record_path: Path) -> None:
    call_command("import_records", str(sample_record_path), stdout=io.StringIO())


def build_catalogue() -> None:
    """Insert the catalogue papers (catalogue inserts are reference data: no history)."""
    now = timezone.now()
    for arxiv_id, title, authors, year in CATALOGUE:
        Paper.objects.create(
            arxiv_id=arxiv_id, title=title, authors=authors, first_author=authors.split(",")[0].lower(),
            year=year, in_catalogue=True, submitted_at=now, last_updated=now, latest_version=1,
        )


def resolve_all(arxiv_id: str = CITING) -> None:
    """Run the resolver on every observation of the paper."""
    from curation.resolution.services import observations_resolve

    observations = list(Observation.objects.filter(paper__arxiv_id=arxiv_id))
    observations_resolve(observations=observations, actor=Actor.command("test"), reason="test resolve")


@pytest.fixture
def resolved(db: Any) -> dict[int, Observation]:
    """Return the citing paper's references, resolved against the small catalogue, by number."""
    build_catalogue()
    now = timezone.now()
    Paper.objects.create(arxiv_id=CITING, title="Citing paper", submitted_at=now, last_updated=now, latest_version=1)
    reference_list_import(
        arxiv_id=CITING,
        references=[Listed(n, str(n), raw) for n, raw in enumerate(REFERENCES, 1)],
        actor=IMPORTER,
        reason="test reference list",
    )
    resolve_all()
    return {
        o.reference_index: o
        for o in Observation.objects.select_related("resolution").filter(paper__arxiv_id=CITING)
    }
