"""A content-addressed store of fetched e-prints on disk, indexed by arXiv id and version.

Layout under the root (CITEREC_SOURCE_STORE):

    objects/ab/cd/abcd…(sha256)        the bytes as arXiv served them
    by-id/2401/2401.00001/v2           "<sha256>\\n<content type>\\n"
    by-id/hep-th_9901/hep-th_9901001/latest   what arXiv served for the id without a version

Every file is written to a temporary name in its directory, fsynced, then renamed over the
final name, so a reader (another worker on the same file system) never sees half a file.
An object whose bytes no longer match its name is treated as missing and removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from curation.references.identifiers import parse_arxiv

log = logging.getLogger(__name__)

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
LATEST = "latest"


@dataclass(frozen=True)
class StoreEntry:
    """What the index says about one id and version: the object's hash and its content type."""

    sha256: str
    content_type: str | None


class SourceStore:
    """Keep e-prints by their sha256; remember which one each arXiv id and version is."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def put(self, data: bytes) -> str:
        """Store the bytes (once: the same bytes twice are one object); return their sha256."""
        sha = hashlib.sha256(data).hexdigest()
        if self.get(sha) is None:
            _write_atomically(self.object_path(sha), data)
        return sha

    def get(self, sha256: str) -> bytes | None:
        """Return the bytes stored under this hash, or None if missing or no longer matching."""
        if not _SHA256.match(sha256):
            return None
        path = self.object_path(sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        if hashlib.sha256(data).hexdigest() != sha256:
            # A damaged disk or a hand edit: never serve it; the next fetch stores it again.
            log.warning("source store: %s does not match its hash; removed", path)
            path.unlink(missing_ok=True)
            return None
        return data

    def remember(
        self, arxiv_id: str, version: int | None, sha256: str, content_type: str | None = None
    ) -> None:
        """Record that this id and version (None: the latest) is the object sha256.

        A version at least as high as every version stored also becomes the latest.
        """
        if not _SHA256.match(sha256):
            raise ValueError(f"{sha256!r} is not a sha256")
        content = f"{sha256}\n{' '.join((content_type or '').split())}\n".encode()
        newest = version is not None and version >= max(self._versions(arxiv_id), default=0)
        _write_atomically(self._index_path(arxiv_id, version), content)
        if newest:
            _write_atomically(self._index_path(arxiv_id, None), content)

    def lookup(self, arxiv_id: str, version: int | None) -> str | None:
        """Return the sha256 stored for this id and version, or None."""
        entry = self.lookup_entry(arxiv_id, version)
        return entry.sha256 if entry else None

    def lookup_entry(self, arxiv_id: str, version: int | None) -> StoreEntry | None:
        """Return the index entry for this id and version, or None.

        Version None is the newest source the store has for the paper (its `latest` entry).
        """
        return _read_entry(self._index_path(arxiv_id, version))

    def object_path(self, sha256: str) -> Path:
        """Return where the object with this hash lives."""
        return self.root / "objects" / sha256[:2] / sha256[2:4] / sha256

    # --- internals ------------------------------------------------------------------------

    def _id_dir(self, arxiv_id: str) -> Path:
        parsed = parse_arxiv(arxiv_id)
        if parsed is None:  # also what keeps '..' and other paths out of the index
            raise ValueError(f"{arxiv_id!r} is not an arXiv id")
        # Old-style ids hold a '/'; no arXiv id holds '_'. A directory per month keeps each
        # directory to tens of thousands of entries.
        name = parsed.id.replace("/", "_")
        month = name[:4] if parsed.scheme == "new" else name[: name.index("_") + 5]
        return self.root / "by-id" / month / name

    def _index_path(self, arxiv_id: str, version: int | None) -> Path:
        if version is not None and version < 1:
            raise ValueError(f"arXiv versions start at 1, not {version}")
        return self._id_dir(arxiv_id) / (LATEST if version is None else f"v{version}")

    def _versions(self, arxiv_id: str) -> list[int]:
        try:
            names = os.listdir(self._id_dir(arxiv_id))
        except FileNotFoundError:
            return []
        return [int(n[1:]) for n in names if n[:1] == "v" and n[1:].isdigit()]


def _read_entry(path: Path) -> StoreEntry | None:
    try:
        lines = path.read_text().split("\n")
    except FileNotFoundError:
        return None
    if not _SHA256.match(lines[0]):
        return None
    return StoreEntry(lines[0], (lines[1] if len(lines) > 1 else "") or None)


def _write_atomically(path: Path, data: bytes) -> None:
    """Write the file whole or not at all: temp file in the same directory, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, 0o644)  # readable by the other workers' users, as a plain file would be
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (some file systems cannot fsync a directory)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
