"""Canonical JSON and the two digests of a record: the one implementation (SPEC §1)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(obj: Any) -> bytes:
    """Encode obj as canonical JSON: sorted keys, no spaces, UTF-8, non-ASCII kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def sha256_digest(obj: Any) -> str:
    """Return "sha256:<hex>" of obj's canonical JSON."""
    return "sha256:" + hashlib.sha256(canonical_json(obj)).hexdigest()


def observation_digest(observation: dict[str, Any]) -> str:
    """Return the digest of an observation, computed without its observation_digest key."""
    return sha256_digest({k: v for k, v in observation.items() if k != "observation_digest"})


def context_digest(record: dict[str, Any]) -> str:
    """Return the digest of a record, computed without its as_of and context_digest keys."""
    return sha256_digest({k: v for k, v in record.items() if k not in ("as_of", "context_digest")})
