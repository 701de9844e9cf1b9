"""Index arXiv source bundles and read one paper's e-print out of a bundle by its byte offset.

A bundle (`arXiv_src_2401_001.tar`) is an uncompressed tar of per-paper e-prints named
`2401/2401.00001.gz` (a gzip'd tar or gzip'd single .tex), `2401/2401.00002.pdf`, or, old
style, `9901/hep-th9901001.gz` (hep-th/9901001: the archive glued to the number).

The index reads the tar's headers one after the other and seeks over each member's data,
keeping no header once its item is yielded: memory stays flat however many members a bundle
holds, and a 500 MB bundle is indexed without reading its e-prints (seeking, where tarfile's
"r|" stream mode would read every byte to skip it). Every member but directories is yielded:
as 'gz', 'pdf' or 'tar' when its name is an arXiv id with that extension, else as 'other'
(arxiv_id ''); links, devices, sparse files, absolute paths and '..' as 'unsafe'. Nothing here
is extracted: a job reads its slice with `read_item`.
"""

from __future__ import annotations

import os
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from curation.references.identifiers import parse_arxiv

KINDS = ("gz", "pdf", "tar", "other", "unsafe")
_EPRINT_KINDS = {".gz": "gz", ".pdf": "pdf", ".tar": "tar"}
# Old-style member stems glue the archive (and its optional subject class) to the number.
_OLD_STEM = re.compile(r"([a-z][a-z-]*(?:\.[A-Za-z-]+)?)(\d{7}(?:v\d+)?)")


class BundleError(Exception):
    """A bundle unreadable from some byte on; the message names the bundle and the byte."""

    def __init__(self, path: Path, offset: int, what: str) -> None:
        super().__init__(f"{path}: at byte {offset}: {what}")
        self.path, self.offset = path, offset


@dataclass(frozen=True, slots=True)
class BundleItem:
    """One member of a bundle: where its data lies in the tar and what it is."""

    arxiv_id: str  # '' when the name carries no arXiv id
    member: str
    offset: int  # of the member's data in the (uncompressed) bundle tar
    size: int
    kind: str  # one of KINDS


def arxiv_id_of_member(member: str) -> tuple[str, str]:
    """Return the arXiv id and e-print kind a member's name gives, or ('', 'other')."""
    stem, dot, ext = member.rpartition("/")[2].rpartition(".")
    kind = _EPRINT_KINDS.get(dot + ext.lower())
    old = _OLD_STEM.fullmatch(stem)
    parsed = parse_arxiv(f"{old[1]}/{old[2]}" if old else stem) if kind else None
    return (parsed.id, kind) if parsed and kind else ("", "other")


def _is_unsafe(info: tarfile.TarInfo) -> bool:
    # Never extracted here, but whoever reads a slice should not have to think about these.
    # (Plain string work, not PurePosixPath: pathlib interns every part, thousands per bundle.)
    name = info.name
    return not info.isreg() or info.issparse() or name.startswith("/") or ".." in name.split("/")


def _item(info: tarfile.TarInfo) -> BundleItem:
    arxiv_id, kind = arxiv_id_of_member(info.name)
    if _is_unsafe(info):
        kind = "unsafe"
    return BundleItem(arxiv_id, info.name, info.offset_data, info.size, kind)


def bundle_index(path: Path) -> Iterator[BundleItem]:
    """Yield the bundle's members in tar order; raise BundleError where the tar is damaged."""
    with path.open("rb") as file:
        end = os.fstat(file.fileno()).st_size
        if file.read(2) == b"\x1f\x8b":
            raise BundleError(path, 0, "gzip-compressed: offsets need the uncompressed .tar")
        file.seek(0)
        try:
            tar = tarfile.open(fileobj=file, mode="r:")
        except tarfile.TarError as exc:
            raise BundleError(path, 0, f"not a tar archive ({exc})") from None
        with tar:
            info = tar.next()  # the first header, which open() read to know this is a tar
            while info is not None:
                if info.offset_data + info.size > end:
                    raise BundleError(
                        path, info.offset, f"{info.name}: data runs past the end of the file"
                    )
                if not info.isdir():
                    yield _item(info)
                info = _next_header(tar, file, path)


def _next_header(tar: tarfile.TarFile, file: BinaryIO, path: Path) -> tarfile.TarInfo | None:
    """Return the header after the current member, or None at tar's end marker."""
    # Not tar.next(): it keeps every header read (memory grows with the bundle) and ends
    # quietly at a damaged or cut header as if the bundle were whole.
    at = tar.offset
    file.seek(at)
    try:
        return tarfile.TarInfo.fromtarfile(tar)
    except tarfile.TarError as exc:
        file.seek(at)
        block = file.read(tarfile.BLOCKSIZE)
        if block == bytes(tarfile.BLOCKSIZE):
            return None
        if not block:
            raise BundleError(
                path, at, "the file ends without tar's end marker (truncated?)"
            ) from None
        raise BundleError(path, at, f"damaged tar header ({exc})") from None


def read_item(path: Path, item: BundleItem) -> bytes:
    """Return the member's bytes, read at its offset without scanning the bundle."""
    if item.kind == "unsafe":
        raise BundleError(path, item.offset, f"{item.member}: unsafe member, not read")
    with path.open("rb") as file:
        file.seek(item.offset)
        data = file.read(item.size)
    if len(data) != item.size:
        raise BundleError(
            path, item.offset, f"{item.member}: {len(data)} of {item.size} bytes (file changed?)"
        )
    return data
