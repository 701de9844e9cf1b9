"""Build a source bundle tar shaped like arXiv's (arXiv_src_YYMM_NNN.tar) from the dev e-prints.

Usage: python bench/make_source_bundle.py --out PATH [--papers 3000] [--pdfs 0] [--month 2401]
                                          [--sources DIR]

Each paper is one member `YYMM/YYMM.NNNNN.gz` holding, byte for byte, one of the dev set's
e-prints (shared/data/arxiv-sources: gzip'd tars and gzip'd single .tex files), taken in turn in
name order; `--pdfs K` makes K papers, spread evenly, a small PDF `YYMM/YYMM.NNNNN.pdf` instead.
The ids are made up, from YYMM.00001 on (the next month after .99999). Deterministic: the same
arguments and sources give the same bytes (fixed mtime, owner and mode; GNU tar format, as
arXiv's). The default 3,000 papers make a bundle of about 500 MB, the size of a real one.
Prints what it wrote.
"""

from __future__ import annotations

import argparse
import io
import re
import tarfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

DEFAULT_SOURCES = Path(__file__).resolve().parents[2] / "shared/data/arxiv-sources"
MTIME = 1_704_067_200  # 2024-01-01T00:00:00Z
MAX_NUMBER = 99_999  # new-style ids have five digits since 2015


def new_style_ids(month: str, count: int) -> Iterator[str]:
    """Yield `count` made-up new-style ids from `month`.00001 on, rolling over to later months."""
    yy, mm = int(month[:2]), int(month[2:])
    for index in range(count):
        months, number = divmod(index, MAX_NUMBER)
        year_add, month0 = divmod(mm - 1 + months, 12)
        yield f"{yy + year_add:02d}{month0 + 1:02d}.{number + 1:05d}"


def tiny_pdf(title: str) -> bytes:
    """Return a one-page PDF showing `title` (a well-formed file: header, objects, xref)."""
    text = title.replace("\\", "").replace("(", "").replace(")", "")
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _member(name: str, data: bytes) -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), MTIME, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info, io.BytesIO(data)


def build_bundle(out: Path, *, papers: int, pdfs: int, sources: Path, month: str) -> Counter[str]:
    """Write the bundle; return how many members of each kind it holds."""
    eprints = [path.read_bytes() for path in sorted(sources.glob("*.gz"))]  # *.tar.gz too
    if not eprints:
        raise SystemExit(f"{sources}: no *.gz or *.tar.gz e-prints to build a bundle from")
    step = papers // pdfs if pdfs else 0
    kinds: Counter[str] = Counter()
    with tarfile.open(out, "w", format=tarfile.GNU_FORMAT) as tar:
        for index, arxiv_id in enumerate(new_style_ids(month, papers)):
            folder = arxiv_id[:4]
            if step and index % step == step - 1 and kinds["pdf"] < pdfs:
                kinds["pdf"] += 1
                tar.addfile(*_member(f"{folder}/{arxiv_id}.pdf", tiny_pdf(f"arXiv:{arxiv_id}")))
            else:
                eprint = eprints[kinds["gz"] % len(eprints)]
                kinds["gz"] += 1
                tar.addfile(*_member(f"{folder}/{arxiv_id}.gz", eprint))
    return kinds


def main(argv: list[str] | None = None) -> None:
    """Build a bundle from the command line and print what was written."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the bundle .tar to write")
    parser.add_argument("--papers", type=int, default=3_000, help="members (default 3,000)")
    parser.add_argument("--pdfs", type=int, default=0, help="how many of them are PDFs")
    parser.add_argument("--month", default="2401", help="YYMM of the first id (default 2401)")
    parser.add_argument("--sources", type=Path, default=DEFAULT_SOURCES, help="dev e-prints")
    args = parser.parse_args(argv)
    if args.papers < 1 or not 0 <= args.pdfs <= args.papers:
        parser.error("need --papers >= 1 and 0 <= --pdfs <= --papers")
    if not re.fullmatch(r"(1[5-9]|[2-9]\d)(0[1-9]|1[0-2])", args.month):
        parser.error("--month is YYMM from 1501 on (five-digit ids)")
    kinds = build_bundle(
        args.out, papers=args.papers, pdfs=args.pdfs, sources=args.sources, month=args.month
    )
    ids = list(new_style_ids(args.month, args.papers))
    print(
        f"wrote {args.out}: {args.papers:,} papers ({kinds['gz']:,} .gz, {kinds['pdf']:,} .pdf), "
        f"ids {ids[0]} to {ids[-1]}, {args.out.stat().st_size:,} bytes"
    )


if __name__ == "__main__":
    main()
