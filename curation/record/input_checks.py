"""Read and check a pith.paper-citation-record.v1 file before anything of it is stored."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection, models
from jsonschema import Draft202012Validator

from ..limits import (
    InputTooLarge,
    JsonTooDeep,
    Limits,
    current_limits,
    loads_bounded,
    read_bounded,
    walk,
)
from ..models import ExternalCitationMeasurement, Observation, Paper
from .canonical import context_digest, observation_digest
from .schema import RECORD_SCHEMA
from .timestamps import parse_date, parse_timestamp

_VALIDATOR = Draft202012Validator(RECORD_SCHEMA)
# PostgreSQL text cannot hold NUL, and UTF-8 cannot encode a lone surrogate ("\ud800" in JSON).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


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


def load_record(path: Path, limits: Limits | None = None) -> dict[str, Any]:
    """Return the checked record in a file, or raise RecordInputError naming what is wrong.

    The file's size is checked before it is read and the nesting while it is parsed, so an
    oversize or deeply nested file is refused without being held in memory whole.
    """
    limits = limits or current_limits()
    name = str(path)
    try:
        raw = read_bounded(
            path, limits.json_file_bytes, limits.describe("json_file_bytes", "bytes")
        )
    except InputTooLarge as exc:
        raise RecordInputError(name, "$", str(exc)) from None
    except OSError as exc:
        raise RecordInputError(name, "$", f"cannot read file: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordInputError(name, "$", f"not UTF-8 (byte {exc.start})") from exc
    del raw  # the bytes are not needed once decoded: one copy less of a large file
    try:
        document = loads_bounded(text, limits.json_depth)
    except JsonTooDeep as exc:
        raise RecordInputError(
            name, exc.where, f"nested deeper than {limits.describe('json_depth', 'levels')}"
        ) from None
    except json.JSONDecodeError as exc:
        raise RecordInputError(
            name, "$", f"not JSON: {_decode_problem(exc)} at line {exc.lineno} column {exc.colno}"
        ) from exc
    del text
    check_values(document, name, limits)
    check_record(document, name)
    check_dates(document, name)
    check_columns(document, name)
    return document  # type: ignore[no-any-return]


def _decode_problem(exc: json.JSONDecodeError) -> str:
    """Return what json found wrong, without the " at" some of its messages end with.

    json writes "Invalid control character at" (and "...{!r} at") expecting its own position
    to follow; ours follows as "at line L column C".
    """
    return exc.msg.removesuffix(" at")


def check_values(document: Any, name: str, limits: Limits) -> None:
    """Raise RecordInputError for a string over the size limit or one PostgreSQL cannot store."""
    limit = limits.string_chars
    for path, value, _ in walk(document):
        strings = list(value) if isinstance(value, dict) else [value]
        for string in strings:
            if not isinstance(string, str):
                continue
            where = path if string is value else f"{path} (key {string[:40]!r})"
            if len(string) > limit:
                raise RecordInputError(
                    name,
                    where,
                    f"string of {len(string):,} characters is longer than "
                    f"{limits.describe('string_chars', 'characters')}",
                )
            bad = _UNSTORABLE.search(string)
            if bad:
                what = "a NUL character" if bad.group() == "\x00" else "a lone UTF-16 surrogate"
                raise RecordInputError(
                    name,
                    where,
                    f"contains {what} at position {bad.start()}, which cannot be stored",
                )


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


# The schema's date ("^\d{4}-\d{2}-\d{2}$") and timestamp patterns both start so. They check
# the shape only: 2026-02-30 and 99:99:99 fit them, and an offset can carry 9999-12-31 past
# the last year UTC holds.
_DATE_SHAPE = r"^\d{4}-\d{2}-\d{2}"


def _dated_values(schema: dict[str, Any], value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Yield (JSON path, text) for every value the schema shapes as a date or a timestamp."""
    if isinstance(value, str) and str(schema.get("pattern", "")).startswith(_DATE_SHAPE):
        yield path, value
    for option in schema.get("anyOf", ()):
        yield from _dated_values(option, value, path)
    if isinstance(value, dict):
        for key, child in schema.get("properties", {}).items():
            if key in value:
                yield from _dated_values(child, value[key], f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            yield from _dated_values(schema["items"], item, f"{path}[{i}]")


def check_dates(document: dict[str, Any], name: str) -> None:
    """Raise RecordInputError for a date or timestamp that is no real time, before any is stored.

    The import parses them only while it stores the record (and `as_of` after it), so one
    left for then would fail the file half-way or, worse, after it was stored.
    """
    for path, text in _dated_values(RECORD_SCHEMA, document, "$"):
        try:
            if len(text) == len("YYYY-MM-DD"):
                parse_date(text)
            else:
                parse_timestamp(text)
        except ValueError as exc:
            raise RecordInputError(name, path, str(exc)) from None


def _column(model: type[models.Model], field_name: str) -> models.Field[Any, Any]:
    return model._meta.get_field(field_name)  # type: ignore[return-value]


def _paper_blocks(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "$.paper", document["paper"]
    for list_name in ("outbound", "inbound"):
        for i, observation in enumerate(document[list_name]):
            for role in ("citing_paper", "cited_paper"):
                block = observation["citation"][role]
                if block is not None:
                    yield f"$.{list_name}[{i}].citation.{role}", block


def _columns_of(document: dict[str, Any]) -> Iterator[tuple[str, Any, models.Field[Any, Any]]]:
    """Yield (JSON path, value, model field) for every value stored in a bounded column."""
    for path, block in _paper_blocks(document):
        for key in ("primary_category", "version", "latest_version"):
            if key in block:
                field_name = "latest_version" if key == "version" else key
                yield f"{path}.{key}", block[key], _column(Paper, field_name)
    for list_name in ("outbound", "inbound"):
        for i, observation in enumerate(document[list_name]):
            path = f"$.{list_name}[{i}].citation"
            citation = observation["citation"]
            index = citation["reference_index"]
            yield f"{path}.reference_index", index, _column(Observation, "reference_index")
            work = citation["cited_work"] or {}
            for key in ("doi", "arxiv_id", "pith_arxiv_id", "metadata_source", "year"):
                if key in work:
                    yield f"{path}.cited_work.{key}", work[key], _column(Observation, f"work_{key}")
    for i, item in enumerate(document["external_citation_measurements"]):
        for key in ("source", "count"):
            if key in item:
                path = f"$.external_citation_measurements[{i}].{key}"
                yield path, item[key], _column(ExternalCitationMeasurement, key)


def check_columns(document: dict[str, Any], name: str) -> None:
    """Raise RecordInputError for a value its database column cannot hold (too long, too big).

    The JSON Schema is served to consumers and leaves these open; the database does not, and
    an import must name the value rather than fail on a database error.
    """
    for path, value, column in _columns_of(document):
        if value is None:
            continue
        if isinstance(value, str) and column.max_length and len(value) > column.max_length:
            raise RecordInputError(
                name, path, f"{len(value):,} characters, longer than the {column.max_length} stored"
            )
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = connection.ops.integer_field_range(column.get_internal_type())
            if (low is not None and value < low) or (high is not None and value > high):
                raise RecordInputError(
                    name, path, f"{value} is outside the stored range {low}..{high}"
                )
