"""Read and check a pith.paper-citation-record.v1 file before anything of it is stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from .canonical import context_digest, observation_digest
from .record_schema import RECORD_SCHEMA

_VALIDATOR = Draft202012Validator(RECORD_SCHEMA)


@dataclass
class RecordInputError(Exception):
    """A record file that cannot be imported: which file, where in it, and what was expected."""

    file: str
    json_path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.json_path}: {self.message}"


def record_files(paths: list[Path]) -> Iterator[Path]:
    """Yield the record files named, folders expanded to their *.json files in name order."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.json") if p.is_file())
        else:
            yield path


def load_record(path: Path) -> dict[str, Any]:
    """Return the checked record in a file, or raise RecordInputError naming what is wrong."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RecordInputError(name, "$", f"cannot read file: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordInputError(name, "$", f"not UTF-8 (byte {exc.start})") from exc
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordInputError(
            name, "$", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc
    check_record(document, name)
    return document  # type: ignore[no-any-return]


def check_record(document: Any, name: str) -> None:
    """Raise RecordInputError for the first problem in a parsed record document."""
    if isinstance(document, dict) and document.get("schema") != "pith.paper-citation-record.v1":
        raise RecordInputError(
            name,
            "$.schema",
            f"expected 'pith.paper-citation-record.v1', found {document.get('schema')!r}",
        )
    error = next(
        iter(sorted(_VALIDATOR.iter_errors(document), key=lambda e: list(e.absolute_path))), None
    )
    if error is not None:
        raise RecordInputError(name, error.json_path, error.message)
    _check_observations(document, name)
    expected = context_digest(document)
    if document["context_digest"] != expected:
        raise RecordInputError(
            name, "$.context_digest", f"does not match the content (content gives {expected})"
        )


def _check_observations(document: dict[str, Any], name: str) -> None:
    seen: dict[str, str] = {}
    arxiv_id = document["paper"]["arxiv_id"]
    for list_name in ("outbound", "inbound"):
        for i, observation in enumerate(document[list_name]):
            path = f"$.{list_name}[{i}]"
            obs_id = observation["observation_id"].lower()
            if obs_id in seen:
                raise RecordInputError(
                    name, f"{path}.observation_id", f"duplicate of {seen[obs_id]}"
                )
            seen[obs_id] = path
            expected = observation_digest(observation)
            if observation["observation_digest"] != expected:
                raise RecordInputError(
                    name,
                    f"{path}.observation_digest",
                    f"does not match the content (content gives {expected})",
                )
            citation = observation["citation"]
            if list_name == "outbound" and citation["citing_paper"]["arxiv_id"] != arxiv_id:
                raise RecordInputError(
                    name,
                    f"{path}.citation.citing_paper.arxiv_id",
                    f"expected the record's paper {arxiv_id}",
                )
            if (
                list_name == "inbound"
                and (citation["cited_paper"] or {}).get("arxiv_id") != arxiv_id
            ):
                raise RecordInputError(
                    name,
                    f"{path}.citation.cited_paper.arxiv_id",
                    f"expected the record's paper {arxiv_id}",
                )
