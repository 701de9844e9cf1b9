"""The source store: content-addressed, atomic, self-checking, indexed by id and version."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from curation.clients.arxiv import SourceStore
from curation.clients.arxiv.store import StoreEntry


@pytest.fixture
def store(tmp_path: Path) -> SourceStore:
    return SourceStore(tmp_path / "sources")


def test_put_lays_objects_out_by_hash(store: SourceStore) -> None:
    sha = store.put(b"\\documentclass{article}")
    assert sha == hashlib.sha256(b"\\documentclass{article}").hexdigest()
    assert (
        store.root / "objects" / sha[:2] / sha[2:4] / sha
    ).read_bytes() == b"\\documentclass{article}"
    assert store.get(sha) == b"\\documentclass{article}"
    assert store.put(b"\\documentclass{article}") == sha  # the same bytes are one object


def test_get_of_a_missing_or_malformed_hash_is_none(store: SourceStore) -> None:
    assert store.get("0" * 64) is None
    assert store.get("../../etc/passwd") is None


def test_a_corrupt_object_is_missing_and_removed(store: SourceStore) -> None:
    sha = store.put(b"original")
    store.object_path(sha).write_bytes(b"bit rot")
    assert store.get(sha) is None
    assert not store.object_path(sha).exists()
    assert store.put(b"original") == sha and store.get(sha) == b"original"


def test_a_failed_write_leaves_nothing_behind(
    store: SourceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_disk)
    with pytest.raises(OSError, match="No space left"):
        store.put(b"half of a paper")
    sha = hashlib.sha256(b"half of a paper").hexdigest()
    assert not store.object_path(sha).exists()
    assert list(store.object_path(sha).parent.iterdir()) == []  # no temporary file either


def test_no_temporary_file_stays_after_a_write(store: SourceStore) -> None:
    sha = store.put(b"paper")
    store.remember("2401.00001", 1, sha)
    leftovers = [p for p in store.root.rglob("*") if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_the_index_maps_ids_and_versions(store: SourceStore) -> None:
    one, two = store.put(b"v1"), store.put(b"v2")
    store.remember("2401.00001", 1, one, "application/gzip")
    assert store.lookup("2401.00001", 1) == one
    assert store.lookup_entry("2401.00001", None) == StoreEntry(one, "application/gzip")
    store.remember("2401.00001", 2, two)
    assert (store.lookup("2401.00001", 2), store.lookup("2401.00001", None)) == (two, two)
    store.remember("2401.00001", 1, one)  # an older version does not become the latest
    assert store.lookup("2401.00001", None) == two
    assert store.lookup("2401.00001", 3) is None and store.lookup("2401.00002", None) is None
    assert (store.root / "by-id" / "2401" / "2401.00001" / "v2").read_text() == f"{two}\n\n"


def test_old_style_ids_are_kept_without_their_slash(store: SourceStore) -> None:
    sha = store.put(b"old")
    store.remember("hep-th/9901001", None, sha)
    assert (store.root / "by-id" / "hep-th_9901" / "hep-th_9901001" / "latest").exists()
    assert store.lookup("hep-th/9901001", None) == sha
    assert store.lookup("hep-th/9901001", 1) is None


@pytest.mark.parametrize("arxiv_id", ["../../etc", "2401.00001/../../x", "", "hep-th/../.."])
def test_what_is_not_an_arxiv_id_never_becomes_a_path(store: SourceStore, arxiv_id: str) -> None:
    with pytest.raises(ValueError, match="not an arXiv id"):
        store.remember(arxiv_id, 1, "0" * 64)


def test_a_damaged_index_entry_is_no_entry(store: SourceStore) -> None:
    store.remember("2401.00001", 1, store.put(b"x"))
    (store.root / "by-id" / "2401" / "2401.00001" / "v1").write_text("garbage")
    assert store.lookup("2401.00001", 1) is None
