"""Verdict lines for raw references (resolve_references, evaluation, benchmarks)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from curation.references import parse_reference
from curation.resolution.resolver import ReferenceInput, Verdict, resolve_inputs


def verdict_line(ref_id: Any, verdict: Verdict) -> dict[str, Any]:
    """Return the public verdict line of one reference."""
    return {
        "id": ref_id,
        "status": verdict.status.value,
        "resolver_source": verdict.resolver_source.value,
        "arxiv_id": verdict.arxiv_id,
        "doi": verdict.doi,
        "title": verdict.linked.title if verdict.verified and verdict.linked else None,
        "score": None if verdict.score is None else round(verdict.score, 1),
        "evidence": verdict.evidence,
    }


def resolve_raw_batch(items: list[tuple[Any, str]]) -> list[dict[str, Any]]:
    """Resolve (id, raw) pairs together and return their verdict lines."""
    inputs = [ReferenceInput.from_parse(parse_reference(raw)) for _, raw in items]
    return [verdict_line(i, v) for (i, _), v in zip(items, resolve_inputs(inputs), strict=True)]


def resolve_reference_lines(
    lines: Iterable[str], source: Path, batch_size: int = 200
) -> Iterator[dict[str, Any]]:
    """Yield a verdict (or {"error"} naming file and line) for each {"id", "raw"} line."""
    batch: list[tuple[Any, str]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            raw = item["raw"]
            if not isinstance(raw, str):
                raise TypeError("field 'raw': expected a string")
            batch.append((item.get("id", number), raw))
        except (ValueError, KeyError, TypeError) as exc:
            detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            yield {"error": f"{source}:{number}: {detail}"}
            continue
        if len(batch) >= batch_size:
            yield from resolve_raw_batch(batch)
            batch = []
    if batch:
        yield from resolve_raw_batch(batch)
