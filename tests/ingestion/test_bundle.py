"""arXiv source bundles: the streaming index, reading one e-print by offset, the bench builder."""

from __future__ import annotations

import gzip
import importlib.util
import io
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

from curation.ingestion.bundle import (
    BundleError,
    BundleItem,
    arxiv_id_of_member,
    bundle_index,
    read_item,
)

REPO = Path(__file__).resolve().parents[2]
GZ = b"\x1f\x8b\x08\x00" + bytes(range(200))  # the index never looks inside a member


def _bench_builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_source_bundle", REPO / "bench/make_source_bundle.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _info(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, len(data)
    if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
        info.linkname = "/etc/passwd"
    return info


def _bundle(path: Path, members: list[tuple[str, bytes] | tarfile.TarInfo]) -> Path:
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tar.addfile(member)
            else:
                name, data = member
                tar.addfile(_info(name, data), io.BytesIO(data))
    return path


def _dev_sources(folder: Path) -> list[Path]:
    """Write two e-prints as the dev set has them: a gzip'd tar and a gzip'd single .tex."""
    folder.mkdir()
    tree = io.BytesIO()
    with tarfile.open(fileobj=tree, mode="w") as tar:
        tex = b"\\documentclass{article}\\begin{document}x\\end{document}"
        tar.addfile(_info("main.tex", tex), io.BytesIO(tex))
    (folder / "a__tree.tar.gz").write_bytes(gzip.compress(tree.getvalue(), mtime=0))
    (folder / "b__single.gz").write_bytes(gzip.compress(b"\\documentclass{article}", mtime=0))
    return sorted(folder.glob("*.gz"))


def _headers(path: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(path) as tar:
        return {info.name: info for info in tar.getmembers()}


def test_index_of_a_built_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _dev_sources(tmp_path / "dev")
    out = tmp_path / "arXiv_src_2401_001.tar"
    _bench_builder().main(
        ["--out", str(out), "--papers", "30", "--pdfs", "3", "--sources", str(tmp_path / "dev")]
    )

    items = list(bundle_index(out))

    assert "30 papers (27 .gz, 3 .pdf), ids 2401.00001 to 2401.00030" in capsys.readouterr().out
    assert [i.arxiv_id for i in items] == [f"2401.{n:05d}" for n in range(1, 31)]
    assert [i.member for i in items if i.kind == "pdf"] == [
        "2401/2401.00010.pdf", "2401/2401.00020.pdf", "2401/2401.00030.pdf",
    ]  # fmt: skip
    assert items[0] == BundleItem("2401.00001", "2401/2401.00001.gz", 512, items[0].size, "gz")
    headers = _headers(out)
    with tarfile.open(out) as tar:
        for item in items:
            assert (item.offset, item.size) == (
                headers[item.member].offset_data,
                headers[item.member].size,
            )
            member = tar.extractfile(item.member)
            assert member is not None and read_item(out, item) == member.read()
    # The dev e-prints, byte for byte, in turn.
    assert [read_item(out, i) for i in items[:2]] == [p.read_bytes() for p in dev]
    assert read_item(out, items[2]) == dev[0].read_bytes()
    assert read_item(out, items[9]).startswith(b"%PDF-1.4\n")


def test_the_bench_bundle_is_deterministic(tmp_path: Path) -> None:
    builder = _bench_builder()
    _dev_sources(tmp_path / "dev")
    first, second = tmp_path / "a.tar", tmp_path / "b.tar"
    for out in (first, second):
        builder.build_bundle(out, papers=12, pdfs=2, sources=tmp_path / "dev", month="2412")

    assert first.read_bytes() == second.read_bytes()
    assert list(builder.new_style_ids("2412", 100_001))[-3:] == [
        "2412.99999", "2501.00001", "2501.00002",
    ]  # fmt: skip


def test_old_style_and_other_names(tmp_path: Path) -> None:
    long_name = "2401/" + "notes-" * 30 + ".txt"  # a GNU long-name header before its data
    bundle = _bundle(
        tmp_path / "b.tar",
        [
            _info("9901", kind=tarfile.DIRTYPE),  # skipped
            ("9901/hep-th9901001.gz", GZ),
            ("9901/math.AG9901002.gz", GZ),
            ("0703/astro-ph0703999v2.pdf", b"%PDF-1.4"),
            ("2401/2401.00001.tar", b"tar"),
            (long_name, b"long"),
            ("2401/2401.0001.gz", GZ),  # 2024 ids have five digits
            ("2401/notes.gz", GZ),
            ("9901/xx-yy9901003.gz", GZ),  # no such archive
            ("2401/2401.00002.GZ", GZ),
        ],
    )

    items = list(bundle_index(bundle))

    assert [(i.arxiv_id, i.kind) for i in items] == [
        ("hep-th/9901001", "gz"),
        ("math/9901002", "gz"),
        ("astro-ph/0703999", "pdf"),
        ("2401.00001", "tar"),
        ("", "other"),
        ("", "other"),
        ("", "other"),
        ("", "other"),
        ("2401.00002", "gz"),
    ]
    assert read_item(bundle, items[4]) == b"long"
    assert items[4].member == long_name


@pytest.mark.parametrize(
    ("member", "expected"),
    [
        ("2401/2401.00001.gz", ("2401.00001", "gz")),
        ("2401.00001v3.pdf", ("2401.00001", "pdf")),
        ("9901/hep-th9901001.gz", ("hep-th/9901001", "gz")),
        ("9901/cond-mat9901001.pdf", ("cond-mat/9901001", "pdf")),
        ("2401/2401.00001", ("", "other")),
        ("2401/2401.00001.tex", ("", "other")),
        ("2413/2413.00001.gz", ("", "other")),
    ],
)
def test_arxiv_id_of_member(member: str, expected: tuple[str, str]) -> None:
    assert arxiv_id_of_member(member) == expected


def test_unsafe_members_are_reported_and_the_scan_goes_on(tmp_path: Path) -> None:
    bundle = _bundle(
        tmp_path / "b.tar",
        [
            _info("2401/2401.00001.gz", kind=tarfile.SYMTYPE),
            _info("2401/2401.00002.gz", kind=tarfile.LNKTYPE),
            _info("2401/2401.00003.gz", kind=tarfile.CHRTYPE),
            _info("2401/2401.00004.gz", kind=tarfile.FIFOTYPE),
            ("/abs/2401.00005.gz", GZ),
            ("2401/../../2401.00006.gz", GZ),
            ("2401/2401.00007.gz", GZ),
        ],
    )

    items = list(bundle_index(bundle))

    assert [(i.arxiv_id, i.kind) for i in items] == [
        *((f"2401.0000{n}", "unsafe") for n in range(1, 7)),
        ("2401.00007", "gz"),
    ]
    assert read_item(bundle, items[-1]) == GZ
    with pytest.raises(BundleError, match=r"2401\.00005\.gz: unsafe member, not read"):
        read_item(bundle, items[4])


def _five_papers(path: Path) -> tuple[Path, dict[str, tarfile.TarInfo]]:
    bundle = _bundle(path, [(f"2401/2401.0000{n}.gz", GZ * n) for n in range(1, 6)])
    return bundle, _headers(bundle)


def _index_until_error(bundle: Path) -> tuple[list[str], BundleError]:
    seen: list[str] = []
    with pytest.raises(BundleError) as raised:
        for item in bundle_index(bundle):
            seen.append(item.arxiv_id)
    return seen, raised.value


def test_a_bundle_cut_inside_a_member(tmp_path: Path) -> None:
    bundle, headers = _five_papers(tmp_path / "cut.tar")
    fourth = headers["2401/2401.00004.gz"]
    with bundle.open("r+b") as file:
        file.truncate(fourth.offset_data + 100)

    seen, error = _index_until_error(bundle)

    assert seen == ["2401.00001", "2401.00002", "2401.00003"]
    assert error.offset == fourth.offset
    assert str(error) == (
        f"{bundle}: at byte {fourth.offset}: 2401/2401.00004.gz: data runs past the end of the file"
    )


def test_a_bundle_cut_between_members(tmp_path: Path) -> None:
    bundle, headers = _five_papers(tmp_path / "cut.tar")
    fifth = headers["2401/2401.00005.gz"]
    with bundle.open("r+b") as file:
        file.truncate(fifth.offset)

    seen, error = _index_until_error(bundle)

    assert seen == ["2401.00001", "2401.00002", "2401.00003", "2401.00004"]
    assert error.offset == fifth.offset
    assert "ends without tar's end marker" in str(error)


def test_a_damaged_header(tmp_path: Path) -> None:
    bundle, headers = _five_papers(tmp_path / "bad.tar")
    third = headers["2401/2401.00003.gz"]
    with bundle.open("r+b") as file:
        file.seek(third.offset)
        file.write(b"\xff" * 512)

    seen, error = _index_until_error(bundle)

    assert seen == ["2401.00001", "2401.00002"]
    assert (error.path, error.offset) == (bundle, third.offset)
    assert "damaged tar header" in str(error)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x1f\x8b\x08\x00" + bytes(600), "at byte 0: gzip-compressed"),
        (b"not a tar at all" * 64, "at byte 0: not a tar archive"),
        (b"", "at byte 0: not a tar archive"),
    ],
)
def test_not_a_bundle(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "x.tar"
    path.write_bytes(data)

    with pytest.raises(BundleError, match=message):
        list(bundle_index(path))


def test_read_item_of_a_bundle_that_shrank(tmp_path: Path) -> None:
    bundle, _ = _five_papers(tmp_path / "b.tar")
    last = list(bundle_index(bundle))[-1]
    with bundle.open("r+b") as file:
        file.truncate(last.offset + 10)

    with pytest.raises(BundleError, match=r"10 of 1020 bytes \(file changed\?\)"):
        read_item(bundle, last)
