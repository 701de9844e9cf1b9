"""The vocabularies of the record format: one place for each (SPEC §1, §2, §4)."""

from __future__ import annotations

from django.db import models


class ResolutionStatus(models.TextChoices):
    """The six resolution states of an observation, in SPEC §2's meaning."""

    VERIFIED_EXACT = "verified_exact", "verified exact"
    VERIFIED_FUZZY = "verified_fuzzy", "verified fuzzy"
    METADATA_MISMATCH = "metadata_mismatch", "metadata mismatch"
    UNRESOLVED = "unresolved", "unresolved"
    MALFORMED_IDENTIFIER = "malformed_identifier", "malformed identifier"
    PARSE_UNCERTAIN = "parse_uncertain", "parse uncertain"


VERIFIED_STATUSES = (ResolutionStatus.VERIFIED_EXACT, ResolutionStatus.VERIFIED_FUZZY)


class ResolverSource(models.TextChoices):
    """Where a resolution's link (or best candidate) came from."""

    LOCAL_ARXIV = "local_arxiv", "local arXiv catalogue"
    PITH = "pith", "paper with its own record"
    DOI = "doi", "DOI record"
    RAW_FALLBACK = "raw_fallback", "raw reference only"


class Origin(models.TextChoices):
    """Who produced a stored judgement: an imported record, citerec's rules, or a curator."""

    IMPORTED = "imported", "imported record"
    COMPUTED = "computed", "citerec rules"
    CURATOR = "curator", "curator"


class NoticeState(models.TextChoices):
    """The state of an observation's standing notice (SPEC §4)."""

    MEASURED = "measured", "measured"
    UNAVAILABLE = "unavailable", "unavailable"


class NoticeReason(models.TextChoices):
    """Why a standing notice is unavailable."""

    CANONICAL_WORK_LINK_UNAVAILABLE = (
        "canonical_work_link_unavailable",
        "canonical work link unavailable",
    )
    NO_SOURCE_ANSWERED = "no_source_answered", "no source answered"


class ChangeSource(models.TextChoices):
    """Where a change to curated data came from (recorded in every history context)."""

    ADMIN = "admin", "admin"
    API = "api", "API"
    TASK = "task", "task"
    IMPORT = "import", "import"
    COMMAND = "command", "command"
