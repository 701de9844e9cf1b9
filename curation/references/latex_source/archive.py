"""Read the text files out of an arXiv e-print (tar.gz, gzip'd single file, tar, TeX) safely.

An e-print is untrusted input. Nothing is written to disk: members are read into memory while
the stream is decompressed, chunk by chunk, and every limit is checked as bytes come out, so a
gzip bomb is refused after about the limit, in flat memory. Member names and kinds are checked
with tarsafe's member checks (its own entry points only guard extract/extractall, which this
module never calls because it never writes files).
"""

from __future__ import annotations

import posixpath
import tarfile
import zlib
from dataclasses import dataclass
from typing import IO, Any, cast

from tarsafe import TarSafe

from curation.references.latex_source.tex import wide_encoding

MIB = 1 << 20
# Files a bibliography can come from or be found through; the rest (figures, data) is skipped.
TEXT_SUFFIXES = (".tex", ".ltx", ".latex", ".bbl", ".bib", ".sty", ".cls", ".bst", ".txt")
_IN_CHUNK = 64 * 1024  # compressed bytes fed to zlib at a time
_OUT_CHUNK = 256 * 1024  # most bytes zlib may return per call: memory stays flat
_RATIO_FLOOR = 1 * MIB  # tiny archives of zeros compress far past any ratio and are harmless
_VIRTUAL_ROOT = "/citerec-eprint"  # the root tarsafe's containment checks measure against
_BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """Caps on one e-print; each is set by the environment variable in SETTINGS."""

    max_members: int = 5_000
    max_total_bytes: int = 200 * MIB  # uncompressed, all members and tar headers together
    max_member_bytes: int = 50 * MIB
    max_ratio: int = 200  # uncompressed bytes per compressed byte, measured while decompressing
    # What the bibliography read from it may hold: references (a \nocite{*} over a 100,000-entry
    # .bib is cut here), and characters of one reference's text (as every reference list).
    max_references: int = 10_000
    max_reference_chars: int = 8_192


SETTINGS = {
    "max_members": "CITEREC_MAX_SOURCE_MEMBERS",
    "max_total_bytes": "CITEREC_MAX_SOURCE_BYTES",
    "max_member_bytes": "CITEREC_MAX_SOURCE_MEMBER_BYTES",
    "max_ratio": "CITEREC_MAX_SOURCE_RATIO",
    "max_references": "CITEREC_MAX_SOURCE_REFERENCES",
    "max_reference_chars": "CITEREC_MAX_REFERENCE_CHARS",
}


class SourceArchiveError(ValueError):
    """An e-print that cannot be read safely; the message names it and the limit or problem."""


class PdfOnlySource(SourceArchiveError):
    """The e-print is a PDF: arXiv has no TeX source for this paper."""


def size_text(n: int) -> str:
    """Return 200 MiB for a whole number of MiB, else 1,234 bytes."""
    return f"{n // MIB:,} MiB" if n >= MIB and n % MIB == 0 else f"{n:,} bytes"


def limit_text(limits: ArchiveLimits, field: str) -> str:
    """Return "the limit of 50 MiB (CITEREC_MAX_SOURCE_MEMBER_BYTES)" for a field."""
    value = getattr(limits, field)
    shown = size_text(value) if field.endswith("bytes") else f"{value:,}"
    return f"the limit of {shown} ({SETTINGS[field]})"


class _Stream:
    """A read()-able view of the (decompressed) e-print that enforces the byte and ratio caps."""

    def __init__(self, data: bytes, *, gzipped: bool, name: str, limits: ArchiveLimits) -> None:
        self._data = memoryview(data)
        self._taken = 0  # input bytes handed to the decompressor (or out, when not compressed)
        self._pending = b""  # compressed bytes taken but not yet given to zlib
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzipped else None
        self._buf = bytearray()
        self._done = False
        self.name, self.limits, self.produced = name, limits, 0
        self.cap = limits.max_total_bytes  # lowered to the member cap for a one-file e-print

    def read(self, size: int = -1) -> bytes:
        """Return up to `size` bytes (all that remain for -1; b"" at the end)."""
        while (size < 0 or len(self._buf) < size) and not self._done:
            self._more()
        if size < 0:
            size = len(self._buf)
        out = bytes(self._buf[:size])
        del self._buf[:size]
        return out

    def _more(self) -> None:
        if self._z is None:
            chunk = bytes(self._data[self._taken : self._taken + _IN_CHUNK])
            self._taken += len(chunk)
            self._done = not chunk
            self._emit(chunk)
            return
        z = self._z
        if z.eof:  # gzip allows several members one after another (multi-member files)
            # Only what zlib read past the member is carried over, never a copy of the rest of
            # the input: an e-print of 100,000 tiny members would otherwise copy it each time.
            self._pending = z.unused_data + self._pending
            if not self._pending:
                self._pending = bytes(self._data[self._taken : self._taken + _IN_CHUNK])
                self._taken += len(self._pending)
            if not self._pending.strip(b"\0") and not any(self._data[self._taken :]):
                self._done = True  # the end, or zero padding after the last member (allowed)
                return
            z = self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        source = z.unconsumed_tail
        if not source:
            if not self._pending:
                self._pending = bytes(self._data[self._taken : self._taken + _IN_CHUNK])
                self._taken += len(self._pending)
            if not self._pending:
                raise SourceArchiveError(f"{self.name}: the gzip stream is truncated")
            source, self._pending = self._pending, b""
        try:
            self._emit(z.decompress(source, _OUT_CHUNK))
        except zlib.error as exc:
            raise SourceArchiveError(f"{self.name}: the gzip stream is corrupt ({exc})") from None

    def _emit(self, chunk: bytes) -> None:
        self.produced += len(chunk)
        if self.produced > self.cap:
            field = (
                "max_total_bytes" if self.cap == self.limits.max_total_bytes else "max_member_bytes"
            )
            raise SourceArchiveError(
                f"{self.name}: archive expands past {limit_text(self.limits, field)}"
            )
        if self._z is not None and self.produced > _RATIO_FLOOR:
            consumed = self._taken - len(self._pending) - len(self._z.unconsumed_tail)
            if self.produced > self.limits.max_ratio * max(consumed, 1):
                raise SourceArchiveError(
                    f"{self.name}: archive expands more than {self.limits.max_ratio:,} times its "
                    f"compressed size, {limit_text(self.limits, 'max_ratio')}"
                )
        self._buf += chunk

    def peek(self, size: int) -> bytes:
        """Return the next `size` bytes (fewer at the end) without consuming them."""
        while len(self._buf) < size and not self._done:
            self._more()
        return bytes(self._buf[:size])


class _CheckedTarInfo(tarfile.TarInfo):
    """A tar header that fails loudly: tarfile ends silently at a bad header past the first."""

    @classmethod
    def fromtarfile(cls, tar: Any) -> Any:
        """Return the next header; a corrupt or cut one raises ReadError instead of ending."""
        try:
            return super().fromtarfile(tar)
        except tarfile.HeaderError as exc:
            # An all-zero block or none at all is the end; anything else is damage. (The
            # subclasses are not in the type stubs, hence the names.)
            if type(exc).__name__ in ("EOFHeaderError", "EmptyHeaderError"):
                raise
            raise tarfile.ReadError(f"bad tar header: {exc}") from None


class _Tar(TarSafe):  # type: ignore[misc]
    """tarsafe's TarFile, reading headers with _CheckedTarInfo."""

    tarinfo = _CheckedTarInfo


def _looks_like_tar(head: bytes) -> bool:
    if len(head) < tarfile.BLOCKSIZE:
        return False
    if head[257:262] == b"ustar":
        return True
    try:  # an old (v7) tar has no magic: a valid header checksum is the test
        tarfile.TarInfo.frombuf(head[: tarfile.BLOCKSIZE], "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return False
    return True


def _refusal(tar: _Tar, member: tarfile.TarInfo) -> str | None:
    """Return why a member makes the whole e-print unsafe, or None."""
    if tar._is_traversal_attempt(tarinfo=member, root=_VIRTUAL_ROOT):
        return "a path outside the archive"
    path = member.name.replace("\\", "/")
    if path.startswith("/") or ".." in path.split("/"):
        return "a path outside the archive"  # stricter than tarsafe: no ".." at all
    # Links are refused even inside the tree: nothing is extracted to resolve them against.
    if member.issym() or member.islnk():
        return "a link"
    if tar._is_device(tarinfo=member) or member.isfifo():  # tarsafe does not check FIFOs
        return "a device or FIFO"
    return None


def _wanted(path: str, keep: tuple[str, ...]) -> bool:
    return path.lower().endswith(keep)


def _read_tar(
    stream: _Stream, name: str, limits: ArchiveLimits, keep: tuple[str, ...]
) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    count = 0
    try:
        with _Tar.open(fileobj=cast(IO[bytes], stream), mode="r|") as tar:
            for member in tar:
                count += 1
                if count > limits.max_members:
                    raise SourceArchiveError(
                        f"{name}: archive has more members than {limit_text(limits, 'max_members')}"
                    )
                why = _refusal(tar, member)
                if why:
                    raise SourceArchiveError(f"{name}: refused, member {member.name!r} is {why}")
                if not member.isreg():
                    continue
                if member.size > limits.max_member_bytes:
                    raise SourceArchiveError(
                        f"{name}: member {member.name!r} ({size_text(member.size)}) is past "
                        f"{limit_text(limits, 'max_member_bytes')}"
                    )
                path = posixpath.normpath(member.name).lstrip("/")
                if not _wanted(path, keep):
                    continue  # tarfile reads past its data; the stream still counts those bytes
                handle = tar.extractfile(member)
                content = handle.read() if handle else b""
                if len(content) != member.size:
                    raise SourceArchiveError(f"{name}: the tar archive is truncated")
                files[path] = content
    except tarfile.TarError as exc:
        raise SourceArchiveError(
            f"{name}: the tar archive is corrupt or truncated ({exc})"
        ) from None
    except EOFError:
        raise SourceArchiveError(f"{name}: the tar archive is truncated") from None
    if count == 0:
        raise SourceArchiveError(f"{name}: the tar archive has no members")
    return files


def _gzip_file_name(data: bytes) -> str | None:
    """Return the basename stored in a gzip header (FNAME), if any."""
    flags = data[3] if len(data) > 3 else 0
    pos = 10
    if flags & 0x04:  # FEXTRA: two-byte length, then the field
        if len(data) < 12:
            return None
        pos += 2 + int.from_bytes(data[10:12], "little")
    if not flags & 0x08:
        return None
    end = data.find(b"\0", pos, pos + 1024)
    if end < 0:
        return None
    stored = posixpath.basename(data[pos:end].decode("latin-1").replace("\\", "/"))
    return stored if stored not in ("", ".", "..") else None


def _is_binary(head: bytes) -> bool:
    if wide_encoding(head) is not None:  # UTF-16 TeX has a NUL beside every ASCII character
        return False
    sample = head[:_BINARY_PROBE]
    return b"\0" in sample or sum(1 for b in sample if b < 9 or 13 < b < 32) > len(sample) // 10


def read_eprint(
    data: bytes,
    *,
    name: str,
    limits: ArchiveLimits = ArchiveLimits(),  # noqa: B008 (frozen, so one shared default is safe)
    keep: tuple[str, ...] = TEXT_SUFFIXES,
) -> dict[str, bytes]:
    """Return the e-print's text files (archive path -> bytes); raise SourceArchiveError.

    Raises PdfOnlySource when arXiv serves only a PDF. A one-file e-print (gzip'd or plain TeX)
    comes back under its gzip-stored name, else as "source.tex".
    """
    if not data or not data.strip():
        raise SourceArchiveError(f"{name}: the e-print is empty")
    gzipped = data[:2] == b"\x1f\x8b"
    stream = _Stream(data, gzipped=gzipped, name=name, limits=limits)
    head = stream.peek(tarfile.BLOCKSIZE)
    if head.startswith(b"%PDF"):
        raise PdfOnlySource(f"{name}: the e-print is a PDF only (no TeX source)")
    if _looks_like_tar(head):
        return _read_tar(stream, name, limits, keep)
    for magic, what in (
        (b"PK\x03\x04", "a ZIP"),
        (b"BZh", "bzip2"),
        (b"\xfd7zXZ", "xz"),
        (b"%!PS", "PostScript"),
    ):
        if head.startswith(magic):
            raise SourceArchiveError(f"{name}: unsupported e-print format ({what})")
    if not head.strip():
        raise SourceArchiveError(f"{name}: the e-print is empty")
    if _is_binary(head):
        raise SourceArchiveError(f"{name}: the e-print is neither a tar archive nor TeX text")
    stream.cap = min(
        limits.max_member_bytes, limits.max_total_bytes
    )  # one file: the member cap holds
    content = stream.read()
    stored = _gzip_file_name(data) if gzipped else None
    return {stored if stored and _wanted(stored, keep) else "source.tex": content}
