"""Score the resolver on the labelled evaluation set: precision, recall, confusion of states."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curation.audit import Actor
from curation.resolution.services.catalogue_imports import (
    import_arxiv_snapshot,
    import_crossref_works,
)
from curation.resolution.verdicts import resolve_raw_batch
from curation.states import ResolutionStatus

FIXTURES = Path(__file__).parent / "fixtures"
VERIFIED = {"verified_exact", "verified_fuzzy"}
NEVER_VERIFIED = {"author_fragment", "venue_only", "artefact", "web_page", "software"}


@dataclass
class Evaluation:
    """The figures of one evaluation."""

    total: int = 0
    linked: int = 0
    linked_right: int = 0
    resolvable: int = 0
    resolvable_found: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    mistakes: list[dict[str, Any]] = field(default_factory=list)
    forbidden_verified: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        """Return the share of linked references linked to the right record."""
        return self.linked_right / self.linked if self.linked else 1.0

    @property
    def recall(self) -> float:
        """Return the share of resolvable references linked to the right record."""
        return self.resolvable_found / self.resolvable if self.resolvable else 1.0

    def table(self) -> str:
        """Return the confusion table of states (rows expected, columns resolved)."""
        states = [s.value for s in ResolutionStatus]
        short = {s: s.replace("verified_", "v_").replace("_identifier", "")[:12] for s in states}
        lines = ["expected \\ got".ljust(22) + "".join(short[s].rjust(13) for s in states)]
        for want in states:
            cells = [self.confusion[(want, got)] for got in states]
            lines.append(want.ljust(22) + "".join(str(c).rjust(13) for c in cells))
        return "\n".join(lines)


def load_catalogue() -> None:
    """Load the evaluation catalogues (arXiv snapshot and Crossref works)."""
    import_arxiv_snapshot(
        path=FIXTURES / "eval_catalogue.jsonl",
        actor=Actor.importer("eval"),
        reason="evaluation catalogue",
        restart=True,
    )
    import_crossref_works(path=FIXTURES / "eval_crossref.jsonl")


def evaluate(path: Path = FIXTURES / "eval_references.jsonl") -> Evaluation:
    """Resolve every labelled reference and compare with its expected outcome."""
    rows = [json.loads(line) for line in path.open()]
    verdicts = resolve_raw_batch([(row["id"], row["raw"]) for row in rows])
    result = Evaluation(total=len(rows))
    for row, verdict in zip(rows, verdicts, strict=True):
        expected, got = row["expected"], verdict["status"]
        result.confusion[(expected["status"], got)] += 1
        want_id = expected["arxiv_id"] or expected["doi"]
        got_id = verdict["arxiv_id"] if expected["arxiv_id"] else verdict["doi"]
        if expected["status"] in VERIFIED:
            result.resolvable += 1
            result.resolvable_found += got in VERIFIED and got_id == want_id
        if got in VERIFIED:
            result.linked += 1
            right = expected["status"] in VERIFIED and got_id == want_id
            result.linked_right += right
            if row["case"] in NEVER_VERIFIED:
                result.forbidden_verified.append(row["id"])
        if got != expected["status"] or (got in VERIFIED and got_id != want_id):
            result.mistakes.append(
                {"id": row["id"], "case": row["case"], "raw": row["raw"], "expected": expected,
                 "got": got, "linked": verdict["arxiv_id"] or verdict["doi"],
                 "decision": verdict["evidence"].get("decision")}
            )  # fmt: skip
    return result
