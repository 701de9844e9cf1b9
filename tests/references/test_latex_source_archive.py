"""Hostile and odd e-prints: each is refused with SourceArchiveError naming it and the problem."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from curation.references.latex_source import (
    ArchiveLimits,
    PdfOnlySource,
    SourceArchiveError,
    read_eprint,
)

NAME = "arXiv:2401.00001"


def _tar(*members: tarfile.TarInfo | tuple[str, bytes], compress: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if compress else "w") as tar:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tar.addfile(member)
            else:
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                tar.addfile(info, io.BytesIO(member[1]))
    return buffer.getvalue()


def _special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, linkname
    return info


PAPER = ("paper.tex", b"\\documentclass{article}\\begin{document}Hi\\end{document}\n")


def test_a_tar_gz_gives_its_text_files_and_skips_the_rest() -> None:
    data = _tar(PAPER, ("fig.png", b"\x89PNG...."), ("sub/refs.bib", b"@misc{a,title={A}}"))
    assert read_eprint(data, name=NAME) == {
        "paper.tex": PAPER[1],
        "sub/refs.bib": b"@misc{a,title={A}}",
    }


def test_a_plain_tar_and_a_plain_tex_are_read() -> None:
    assert read_eprint(_tar(PAPER, compress=False), name=NAME) == {"paper.tex": PAPER[1]}
    assert read_eprint(PAPER[1], name=NAME) == {"source.tex": PAPER[1]}


def test_a_gzipped_single_file_keeps_its_stored_name_or_gets_one() -> None:
    assert read_eprint(gzip.compress(PAPER[1]), name=NAME) == {"source.tex": PAPER[1]}
    named = io.BytesIO()
    with gzip.GzipFile(filename="ms.tex", mode="wb", fileobj=named) as handle:
        handle.write(PAPER[1])
    assert read_eprint(named.getvalue(), name=NAME) == {"ms.tex": PAPER[1]}


@pytest.mark.parametrize(
    ("member", "problem"),
    [
        (("../evil.tex", b"x"), "outside the archive"),
        (("a/../../evil.tex", b"x"), "outside the archive"),
        (("/etc/evil.tex", b"x"), "outside the archive"),
        (_special("link.tex", tarfile.SYMTYPE, "/etc/passwd"), "a link"),
        (_special("inside.tex", tarfile.SYMTYPE, "paper.tex"), "a link"),
        (_special("hard.tex", tarfile.LNKTYPE, "paper.tex"), "a link"),
        (_special("dev", tarfile.CHRTYPE), "a device or FIFO"),
        (_special("blk", tarfile.BLKTYPE), "a device or FIFO"),
        (_special("fifo", tarfile.FIFOTYPE), "a device or FIFO"),
    ],
)
def test_unsafe_members_refuse_the_whole_archive(member: object, problem: str) -> None:
    with pytest.raises(SourceArchiveError, match=problem) as caught:
        read_eprint(_tar(PAPER, member), name=NAME)  # type: ignore[arg-type]
    assert str(caught.value).startswith(NAME)


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """Return a line of TeX and 10 GiB of blanks in 10,240 gzip members of 1 MiB (about 10 MB)."""
    return gzip.compress(b"\\documentclass{article}\n") + gzip.compress(b" " * (1 << 20)) * 10_240


def test_a_gzip_bomb_is_refused_by_the_ratio_cap(gzip_bomb: bytes) -> None:
    with pytest.raises(SourceArchiveError, match="CITEREC_MAX_SOURCE_RATIO") as caught:
        read_eprint(gzip_bomb, name=NAME)
    assert str(caught.value).startswith(NAME)


def test_a_gzip_bomb_is_refused_by_the_byte_cap_when_ratios_are_allowed(gzip_bomb: bytes) -> None:
    limits = ArchiveLimits(max_ratio=10**9)
    with pytest.raises(SourceArchiveError, match=r"50 MiB \(CITEREC_MAX_SOURCE_MEMBER_BYTES\)"):
        read_eprint(gzip_bomb, name=NAME, limits=limits)  # one file: its cap is the member cap


def test_a_bomb_of_bare_zeros_is_refused_from_its_first_block() -> None:
    with pytest.raises(SourceArchiveError, match="neither a tar archive nor TeX"):
        read_eprint(gzip.compress(bytes(1 << 20)) * 10_240, name=NAME)


def test_a_tar_gz_bomb_is_refused_while_it_is_read() -> None:
    big = tarfile.TarInfo("zeros.txt")
    big.size = 300 << 20
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.addfile(big, io.BytesIO(bytes(big.size)))
    limits = ArchiveLimits(max_ratio=10**9, max_member_bytes=1 << 30)
    with pytest.raises(
        SourceArchiveError, match="past the limit of 200 MiB \\(CITEREC_MAX_SOURCE_BYTES\\)"
    ):
        read_eprint(buffer.getvalue(), name=NAME, limits=limits)


def test_a_member_over_the_member_cap_is_refused_from_its_header() -> None:
    data = _tar(PAPER, ("big.tex", bytes(2048)))
    with pytest.raises(SourceArchiveError, match="CITEREC_MAX_SOURCE_MEMBER_BYTES"):
        read_eprint(data, name=NAME, limits=ArchiveLimits(max_member_bytes=1024))


def test_too_many_members_are_refused() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for i in range(100_000):
            tar.addfile(tarfile.TarInfo(f"f{i}.txt"))
    with pytest.raises(
        SourceArchiveError, match="5,000 \\(CITEREC_MAX_SOURCE_MEMBERS\\)"
    ) as caught:
        read_eprint(buffer.getvalue(), name=NAME)
    assert str(caught.value).startswith(NAME)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (_tar(PAPER)[:-40], "truncated"),
        (_tar(PAPER)[:60], "truncated"),
        (gzip.compress(_tar(PAPER, compress=False)[:700]), "truncated|corrupt"),
        (
            gzip.compress(
                _tar(PAPER, ("b.tex", b"y" * 600), compress=False)[:1024]
                + b"\xff" * 512
                + bytes(1024)
            ),
            "corrupt",
        ),
        (b"\x1f\x8b\x08\x00" + b"\xff" * 64, "corrupt"),
        (b"PK\x03\x04rest", "ZIP"),
        (b"\x00\x01\x02binary" * 100, "neither a tar archive nor TeX"),
    ],
)
def test_broken_input_is_refused_with_a_reason(data: bytes, problem: str) -> None:
    with pytest.raises(SourceArchiveError, match=problem) as caught:
        read_eprint(data, name=NAME)
    assert str(caught.value).startswith(f"{NAME}: ")


def test_a_pdf_is_reported_as_pdf_only() -> None:
    with pytest.raises(PdfOnlySource, match="PDF"):
        read_eprint(b"%PDF-1.5\n...", name=NAME)
    with pytest.raises(PdfOnlySource):
        read_eprint(gzip.compress(b"%PDF-1.5\n..."), name=NAME)


def test_a_source_in_many_gzip_members_reads_whole_with_zero_padding_after_it() -> None:
    text = b"\\documentclass{article}\n" + b"% a line of the source\n" * 2_000 + b"\\begin{document}\\end{document}\n"
    pieces = [text[i : i + 40] for i in range(0, len(text), 40)]  # over a thousand members
    data = b"".join(gzip.compress(piece) for piece in pieces) + b"\0" * 4_096
    files = read_eprint(data, name=NAME)
    assert list(files.values()) == [text]


def test_garbage_after_the_last_gzip_member_is_refused() -> None:
    data = gzip.compress(PAPER[1]) + b"\0" * 16 + b"not gzip at all"
    with pytest.raises(SourceArchiveError, match=NAME):
        read_eprint(data, name=NAME)
