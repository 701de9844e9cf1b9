"""Generated Crossref works, laid out as Crossref's public data file is (bench only, not CI).

    python bench/crossref_works.py 1000000

writes, once, into bench/.data/:
- crossref-N/NNNNN.json.gz: gzip'd {"items": [...]} files of 5,000 works each, as in the
  public data file (a folder of them, or a tar of that folder: crossref-N.tar);
- crossref-N.jsonl: the same works as one JSON lines file, which the importer before the
  folder and tar paths could read.

Works are about 1.5 KB of JSON each: DOI, title, 1-8 authors with given/family/affiliation,
journal and short title, ISSN, dates, volume/issue/page, publisher, a few references, a
relation to an arXiv preprint for 1 in 50, an updated-by notice for 1 in 500.
"""

from __future__ import annotations

import gzip
import random
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_catalogue import _SURNAMES, vocabulary  # noqa: E402

DATA = Path(__file__).resolve().parent / ".data"
PER_FILE = 5_000  # works per file of Crossref's public data file (2023-2025 releases)

_JOURNALS = (
    ("Physical Review D", "Phys. Rev. D"), ("Journal of High Energy Physics", "J. High Energ. Phys."),
    ("Nature", "Nature"), ("The Astrophysical Journal", "ApJ"),
    ("Communications in Mathematical Physics", "Commun. Math. Phys."),
    ("IEEE Transactions on Pattern Analysis and Machine Intelligence", "IEEE Trans. Pattern Anal. Mach. Intell."),
    ("Journal of Machine Learning Research", "J. Mach. Learn. Res."),
    ("Monthly Notices of the Royal Astronomical Society", "MNRAS"),
)  # fmt: skip
_TYPES = ("journal-article",) * 8 + ("proceedings-article", "book-chapter")


def works(count: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """Yield count Crossref-shaped work objects (the same ones for the same seed)."""
    rng = random.Random(seed)
    words = vocabulary(rng)[:20_000]
    for n in range(count):
        year = 1990 + n % 36
        journal, short = _JOURNALS[n % len(_JOURNALS)]
        doi = f"10.{1000 + n % 5000}/gen.{n}"
        authors = [
            {"given": rng.choice("ABCDEFGHJK") + ".", "family": rng.choice(_SURNAMES),
             "sequence": "first" if i == 0 else "additional",
             "affiliation": [{"name": "University of " + rng.choice(words).capitalize()}]}
            for i in range(rng.randint(1, 8))
        ]  # fmt: skip
        title = " ".join(rng.choice(words) for _ in range(rng.randint(4, 12))).capitalize()
        work: dict[str, Any] = {
            "DOI": doi,
            "title": [title],
            "author": authors,
            "container-title": [journal],
            "short-container-title": [short],
            "ISSN": [f"{1000 + n % 9000}-{n % 9000:04d}"],
            "issued": {"date-parts": [[year, 1 + n % 12, 1 + n % 28]]},
            "published-print": {"date-parts": [[year, 1 + n % 12]]},
            "created": {"date-parts": [[year, 1, 1]], "timestamp": 631152000000 + n},
            "type": _TYPES[n % len(_TYPES)],
            "volume": str(1 + n % 120),
            "issue": str(1 + n % 12),
            "page": f"{100 + n % 9000}-{110 + n % 9000}",
            "publisher": "Generated Publishing",
            "reference-count": 3,
            "is-referenced-by-count": n % 97,
            "URL": f"https://doi.org/{doi}",
            "reference": [
                {"key": f"ref{r}", "DOI": f"10.{1000 + r}/gen.{rng.randrange(count)}"}
                for r in range(3)
            ],
        }
        if n % 50 == 0:
            work["relation"] = {"has-preprint": [
                {"id-type": "arxiv", "id": f"{2001 + n % 20}.{n % 99999:05d}",
                 "asserted-by": "subject"}
            ]}  # fmt: skip
        if n % 500 == 0:
            work["updated-by"] = [
                {"DOI": f"10.9999/notice.{n}", "type": "correction", "label": "Correction",
                 "updated": {"date-parts": [[year + 1, 1, 1]]}}
            ]  # fmt: skip
        yield work


def generate(count: int) -> dict[str, Path]:
    """Write the folder, tar and JSON lines forms of `count` works once; return their paths."""
    folder = DATA / f"crossref-{count}"
    tar = DATA / f"crossref-{count}.tar"
    lines = DATA / f"crossref-{count}.jsonl"
    if not (folder.is_dir() and tar.exists() and lines.exists()):
        started = time.perf_counter()
        folder.mkdir(parents=True, exist_ok=True)
        batch: list[dict[str, Any]] = []
        number = 0
        with lines.open("wb") as out:
            for work in works(count):
                out.write(orjson.dumps(work) + b"\n")
                batch.append(work)
                if len(batch) == PER_FILE:
                    _write_items(folder / f"{number:05d}.json.gz", batch)
                    number, batch = number + 1, []
            if batch:
                _write_items(folder / f"{number:05d}.json.gz", batch)
        with tarfile.open(tar, "w") as archive:  # the public file is a tar of .json.gz files
            for member in sorted(folder.iterdir()):
                archive.add(member, arcname=f"crossref/{member.name}")
        print(f"generated {count:,} works in {time.perf_counter() - started:.0f}s: {folder}")
    return {"folder": folder, "tar": tar, "jsonl": lines}


def _write_items(path: Path, items: list[dict[str, Any]]) -> None:
    path.write_bytes(gzip.compress(orjson.dumps({"items": items}), compresslevel=6, mtime=0))


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or [100_000]:
        print(generate(size))
