"""Catalogues for the real-reference evaluation (bench/eval_real.py), built deterministically.

glutton-dev: one Crossref work per gold DOI plus hard negatives (near-identical titles, same
journal and volume with other pages, same first authors, same titles in other journals and
years, same volume and page in another journal). Physics: arXiv snapshot lines whose journal-ref
is a journal-only citation of the GROBID corpus, plus negatives on the same journal and volume.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
GLUTTON = DATA / "glutton-dev" / "references.jsonl.gz"
CORPUS = DATA / "grobid-citation-corpus"
_YEAR = re.compile(r"(?<![\d.])((?:18|19|20)\d\d)(?![\d])")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")
_TEI = "{http://www.tei-c.org/ns/1.0}"


def held_aside(ref_id: str) -> bool:
    """Return whether a reference is in the held-aside fold (the rule h7b uses too)."""
    return int(hashlib.sha1(ref_id.encode()).hexdigest(), 16) % 5 == 0


def load_glutton(path: Path = GLUTTON) -> list[dict[str, Any]]:
    """Return the glutton-dev references."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def cited_year(raw: str) -> int | None:
    """Return the year the reference gives (the last plausible one; gold has no year)."""
    years = [int(y) for y in _YEAR.findall(raw) if 1850 <= int(y) <= 2030]
    return years[-1] if years else None


def _first_word_surname(raw: str) -> str:
    match = re.match(r"\s*([A-Z][A-Za-z'\-]+)", raw)
    return match.group(1) if match else ""


def _work(doi: str, title: str, author: str, journal: str, volume: str, page: str,
          year: int | None) -> dict[str, Any]:  # fmt: skip
    work: dict[str, Any] = {
        "DOI": doi,
        "type": "journal-article",
        "title": [title],
        "container-title": [journal] if journal else [],
        "volume": volume,
        "page": page,
        "author": [{"family": author, "given": "A."}] if author else [],
    }
    if year:
        work["issued"] = {"date-parts": [[year]]}
    return work


def _alter_title(title: str, vocabulary: list[str], rng: random.Random) -> str:
    """Return a near-identical title: one word swapped, dropped or added, or a number changed."""
    words = title.split()
    numbers = [i for i, w in enumerate(words) if re.fullmatch(r"\d+", w)]
    roll = rng.random()
    if numbers and roll < 0.2:
        i = rng.choice(numbers)
        words[i] = str(int(words[i]) + rng.randint(1, 9))
    elif roll < 0.55 and len(words) > 3:
        i = rng.randrange(len(words))
        words[i] = rng.choice(vocabulary)
    elif roll < 0.75 and len(words) > 4:
        del words[rng.randrange(len(words))]
    else:
        words.insert(rng.randrange(len(words) + 1), rng.choice(vocabulary))
    return " ".join(words)


def _mix_titles(a: str, b: str, rng: random.Random) -> str:
    left, right = a.split(), b.split()
    cut = max(1, len(left) // 2)
    return " ".join(left[:cut] + right[len(right) // 2 :]) or a + " revisited"


def glutton_works(
    refs: list[dict[str, Any]], negatives_per_work: int = 4
) -> Iterator[dict[str, Any]]:
    """Yield Crossref work objects: every gold work, then the hard negatives."""
    gold: dict[str, dict[str, Any]] = {}
    for ref in refs:
        doi = ref["doi"].lower()
        if doi in gold:
            continue
        gold[doi] = {
            "doi": doi,
            "title": ref["title"],
            "author": ref["first_author"] or _first_word_surname(ref["raw_string"]),
            "journal": ref["journal"],
            "volume": ref["volume"],
            "page": ref["first_page"],
            "year": cited_year(ref["raw_string"]),
        }
    by_journal: dict[str, list[dict[str, Any]]] = defaultdict(list)
    vocabulary: list[str] = []
    for g in gold.values():
        by_journal[g["journal"]].append(g)
        vocabulary.extend(_WORD.findall(g["title"]))
    vocabulary = sorted(set(vocabulary))
    authors = sorted({g["author"] for g in gold.values() if g["author"]})
    journals = sorted(by_journal)
    for g in gold.values():
        yield _work(g["doi"], g["title"], g["author"], g["journal"], g["volume"],
                    g["page"], g["year"])  # fmt: skip
    for g in gold.values():
        rng = random.Random(g["doi"])
        peers = by_journal[g["journal"]]
        year = g["year"]
        page = int(g["page"]) if g["page"].isdigit() else 100
        for n in range(negatives_per_work):
            doi = f"10.9999/neg.{hashlib.sha1(g['doi'].encode()).hexdigest()[:12]}.{n}"
            other = rng.choice(peers if len(peers) > 1 else list(gold.values()))
            kind = n % 4
            if kind == 0:  # near-identical title, same journal and volume, another page
                title = _alter_title(g["title"], vocabulary, rng)
                author = g["author"] if rng.random() < 0.5 else rng.choice(authors)
                yield _work(doi, title, author, g["journal"], g["volume"],
                            str(page + rng.randint(1, 60)), year and year + rng.choice((0, 0, 1)))  # fmt: skip
            elif kind == 1:  # same journal and volume, other page, another title and author
                title = _mix_titles(other["title"], g["title"], rng)
                yield _work(doi, title, rng.choice(authors), g["journal"], g["volume"],
                            str(max(1, page - rng.randint(1, 40))), year)  # fmt: skip
            elif kind == 2:  # same first author, a title sharing half its words
                title = _mix_titles(g["title"], other["title"], rng)
                yield _work(doi, title, g["author"], g["journal"],
                            str(int(g["volume"]) + 1) if g["volume"].isdigit() else g["volume"],
                            str(page + rng.randint(1, 300)), year and year + 1)  # fmt: skip
            elif rng.random() < 0.5:  # the same title, another work (journal, year, author)
                yield _work(doi, g["title"], rng.choice(authors), rng.choice(journals),
                            str(rng.randint(1, 300)), str(rng.randint(1, 2000)),
                            year and year - rng.randint(3, 12))  # fmt: skip
            else:  # the same volume and first page in another journal
                yield _work(doi, _mix_titles(other["title"], rng.choice(vocabulary), rng),
                            rng.choice(authors), rng.choice(journals), g["volume"], g["page"],
                            year)  # fmt: skip


# --- physics journal references (GROBID corpus) -------------------------------------------


@dataclass(frozen=True)
class JournalCitation:
    """A journal-only citation of the corpus and the parts it was tagged with."""

    key: str
    raw: str
    authors: str
    journal: str
    volume: str
    page: str
    year: int | None


def _text(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def physics_citations(corpus: Path = CORPUS) -> list[JournalCitation]:
    """Return the corpus citations that give a journal, volume and page but no article title."""
    found = []
    for path in sorted(corpus.glob("*.xml")):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        for index, bibl in enumerate(root.iter(f"{_TEI}bibl")):
            titles = {t.get("level"): _text(t) for t in bibl.findall(f"{_TEI}title")}
            scopes = {s.get("unit"): _text(s) for s in bibl.findall(f"{_TEI}biblScope")}
            if "a" in titles or "m" in titles or not titles.get("j"):
                continue
            volume, page = scopes.get("volume", ""), scopes.get("page", "")
            if not (volume.isdigit() and re.fullmatch(r"[A-Z]?\d+", page.split("-")[0] or "")):
                continue
            date = bibl.find(f"{_TEI}date")
            year = cited_year(_text(date)) if date is not None else None
            found.append(
                JournalCitation(
                    f"{path.name}#{index}",
                    _text(bibl),
                    ", ".join(_text(a) for a in bibl.findall(f"{_TEI}author")),
                    titles["j"],
                    volume,
                    page.split("-")[0],
                    year,
                )  # fmt: skip
            )
    return found


def _journal_ref(c: JournalCitation, page: str, style: int) -> str:
    """Return an arXiv journal-ref in one of the forms arXiv metadata uses."""
    glued = c.journal.replace(" ", "")
    year = c.year or 2000
    return [
        f"{glued}{c.volume}:{page},{year}",
        f"{c.journal} {c.volume} ({year}) {page}",
        f"{c.journal} {c.volume}, {page} ({year})",
    ][style % 3]


def physics_snapshot(
    citations: list[JournalCitation],
) -> Iterator[tuple[dict[str, Any], tuple[str, ...]]]:
    """Yield (arXiv snapshot object, keys of the citations naming it; () for a negative).

    Citations of one work in several corpus files (same journal, volume, page) name one record.
    """
    from curation.resolution.venues import page_key, venue_key

    groups: dict[tuple[str, str, str], list[JournalCitation]] = defaultdict(list)
    for c in citations:
        groups[(venue_key(c.journal), c.volume, page_key(c.page))].append(c)
    for number, ((key, volume, _), group) in enumerate(groups.items()):
        c = group[0]
        rng = random.Random(c.key)
        year = c.year or 2000
        base = f"{(year % 100):02d}{rng.randint(1, 12):02d}"
        page_number = int(re.sub(r"\D", "", c.page))
        negative_page = str(page_number + rng.randint(1, 90))
        while (key, volume, negative_page) in groups:  # a look-alike, never another cited work
            negative_page = str(int(negative_page) + 1)
        keys = tuple(g.key for g in group)
        authors = ", ".join(dict.fromkeys(g.authors for g in group if g.authors))
        for n, (page, named) in enumerate([(c.page, keys), (negative_page, ())]):
            arxiv_id = f"{base}.{(number * 2 + n) % 100000:05d}"
            yield (
                {
                    "id": arxiv_id,
                    "title": f"Physics result number {number} variant {n}",
                    "authors": authors or "A. Author",
                    "journal-ref": _journal_ref(c, page, number + n),
                    "versions": [{"created": f"Mon, 2 Apr {year} 10:00:00 GMT"}],
                    "update_date": f"{year}-04-02",
                },
                named,
            )
