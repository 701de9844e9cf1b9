"""Print field F1 per tag and identifier precision/recall of the parser on the GROBID corpus.

Usage: python bench/eval_corpus.py [--corpus DIR] [--split dev|fold|both] [--show FIELD]
                                   [--check]
  --corpus  the grobid-citation-corpus directory (default ../shared/data/grobid-citation-corpus,
            or $CITEREC_GROBID_CORPUS)
  --split   dev (4/5), fold (the held-aside 1/5) or both (default; each printed separately)
  --show    list the disagreements of one field (title, first_author, year, venue, volume,
            first_page, arxiv, doi) on the chosen split
  --check   exit 1 when identifier recall < 0.99 or precision < 0.99 on a printed split

Each `<bibl>` is one real reference string as it came out of a PDF; its raw text is the
concatenation of all its text (tags removed, whitespace collapsed) and the gold fields are its
tagged parts. The fold is fixed: key = "<file name>#<index of the bibl in the file>",
fold when int(sha1(key).hexdigest(), 16) % 5 == 0. Measure on the fold last.

Gold conventions (the corpus tags whole author lists in one <author> as often as one name):
- title: <title level="a">, else <title level="m"> when there is no article title;
- first author: the words of the first name in the first <author> (or <orgName>) that are not
  initials; a parse is right when every word of its surname is among them;
- venue: <title level="j">, else the level "m" title when an article title exists;
- volume / first page: <biblScope unit|type = volume|vol> / <... page|pp>, first number;
- year: the first four-digit year in the first <date>;
- arXiv / DOI: <idno> whose type or text says arXiv / DOI, canonicalised (spaces removed),
  and the id of any arxiv.org/abs link or DOI-holding URL path ("…/10.1103/…") in the text.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from curation.references import ParsedReference, normalize_title, parse_reference  # noqa: E402

DEFAULT_CORPUS = Path(
    os.environ.get(
        "CITEREC_GROBID_CORPUS",
        Path(__file__).resolve().parents[2] / "shared/data/grobid-citation-corpus",
    )
)
TEI = "{http://www.tei-c.org/ns/1.0}"
FIELDS = ("title", "first_author", "year", "venue", "volume", "first_page", "arxiv", "doi")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_NEW_ID = re.compile(r"(?<!\d)(\d{4}\.\d{4,5})(?:v\d+)?(?!\d)")
_OLD_ID = re.compile(r"([a-z]+(?:-[a-z]+)?)(?:\.[a-z]{2})?/(\d{7})", re.I)
_DOI = re.compile(r"10\.\d{4,9}/\S+", re.I)
_DOI_URL = re.compile(r"(?<=/)(10\.\d{4,9}/[^\s,;\[\]]+)", re.I)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/(\S+)", re.I)
_INITIAL = re.compile(r"^(?:[A-Z][a-z]?\.?-?)+$|^[A-Z]{1,3}$")
_PARTICLES = frozenset("van von der den de del della di da du dos das le la ten ter y".split())


@dataclass(slots=True)
class Example:
    """One corpus citation: its key, raw text and gold fields (None when untagged)."""

    key: str
    raw: str
    gold: dict[str, object]

    @property
    def in_fold(self) -> bool:
        """Return whether this citation belongs to the held-aside fold."""
        return int(hashlib.sha1(self.key.encode()).hexdigest(), 16) % 5 == 0


def _local(tag: object) -> str:
    return tag.split("}")[-1] if isinstance(tag, str) else ""


def _text(el: etree._Element) -> str:
    return " ".join("".join(el.itertext()).split())


def _fold(s: str) -> str:
    decomposed = unicodedata.normalize("NFKD", s)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _first_author_words(el: etree._Element | None) -> frozenset[str] | None:
    if el is None:
        return None
    text = _text(el)
    if _local(el.tag) == "orgName" or "collaboration" in text.lower():
        words = re.findall(r"[^\W\d_]+", text)
        return frozenset(_fold(w) for w in words) or None
    first = re.split(r",|;|\s+and\s+|&", text, maxsplit=1)[0]
    words = [w.strip(".") for w in re.findall(r"[^\s,]+", first)]
    names = [
        _fold(w)
        for w in words
        if w and not _INITIAL.match(w) and w.lower() not in _PARTICLES and w.lower() != "et"
    ]
    return frozenset(n for n in names if n) or None


def _canonical_arxiv(text: str) -> str | None:
    squeezed = re.sub(r"\s+", "", text)
    m = _NEW_ID.search(squeezed)
    if m:
        return m[1]
    m = _OLD_ID.search(squeezed)
    return f"{m[1].lower()}/{m[2]}" if m else None


def _canonical_doi(text: str) -> str | None:
    m = _DOI.search(re.sub(r"\s+", "", text))
    if not m:
        return None
    doi = m[0].rstrip(".,;").lower()
    doi = re.sub(r"\((?:19|20)\d\d$", "", doi)  # "…-y(2018." is the year, glued
    if doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1].rstrip(".")
    return doi[:-4] if doi.endswith(".url") else doi  # "…/PhysRevD.11.395.URL http://…"


def _identifiers(bibl: etree._Element) -> tuple[set[str], set[str]]:
    text = _text(bibl)
    arxiv = {a for m in _ARXIV_URL.finditer(text) if (a := _canonical_arxiv(m[1]))}
    # A doi.org link names its DOI unambiguously even where the annotators left it untagged.
    dois = {d for m in _DOI_URL.finditer(text) if (d := _canonical_doi(m[1]))}
    for el in bibl.iter(f"{TEI}idno", "idno"):
        kind, text = (el.get("type") or "").lower(), _text(el)
        if "arxiv" in kind or (not kind and ("arxiv" in text.lower() or _OLD_ID.search(text))):
            if aid := _canonical_arxiv(text):
                arxiv.add(aid)
        elif kind == "doi" or (not kind and "10." in text):
            if doi := _canonical_doi(text):
                dois.add(doi)
    return arxiv, dois


def _gold(bibl: etree._Element) -> dict[str, object]:
    titles: dict[str, str] = {}
    scopes: dict[str, str] = {}
    first_author: etree._Element | None = None
    date: str | None = None
    for el in bibl.iter():
        name = _local(el.tag)
        if name == "title":
            level = el.get("level") or el.get("leve") or ""
            titles.setdefault(level, _text(el))
        elif name in ("author", "orgName") and first_author is None:
            if not any(_local(a.tag) == "editor" for a in el.iterancestors()):
                first_author = el
        elif name == "date" and date is None:
            date = _text(el)
        elif name in ("biblScope", "biblStruct"):
            unit = (el.get("unit") or el.get("type") or el.get("type ") or "").lower()
            unit = {"vol": "volume", "pp": "page", "pages": "page"}.get(unit, unit)
            scopes.setdefault(unit, _text(el))
    year = _YEAR.search(date) if date else None
    page = scopes.get("page")
    first_page = re.split(r"\s*[-–—]+\s*", page)[0].strip(" .,") if page else None
    arxiv, dois = _identifiers(bibl)
    return {
        "title": titles.get("a") or titles.get("m"),
        "first_author": _first_author_words(first_author),
        "year": int(year[1]) if year else None,
        "venue": titles.get("j") or (titles.get("m") if titles.get("a") else None),
        "volume": scopes.get("volume") or None,
        "first_page": first_page or None,
        "arxiv": arxiv,
        "doi": dois,
    }


def load_corpus(directory: Path) -> Iterator[Example]:
    """Yield every citation of the corpus in file-name order, with its gold fields."""
    parser = etree.XMLParser(remove_comments=True, recover=True, resolve_entities=False)
    for path in sorted(directory.glob("*.xml")):
        root = etree.parse(str(path), parser).getroot()
        if root is None:
            continue
        for index, bibl in enumerate(root.iter(f"{TEI}bibl", "bibl")):
            raw = _text(bibl)
            if raw:
                yield Example(f"{path.name}#{index}", raw, _gold(bibl))


def predicted(ref: ParsedReference) -> dict[str, object]:
    """Return the parse's values for the scored fields."""
    ids = ref.identifiers
    return {
        "title": ref.title,
        "first_author": ref.first_author_surname,
        "year": ref.year,
        "venue": getattr(ref, "journal", None) or ref.venue,
        "volume": ref.volume,
        "first_page": getattr(ref, "first_page", None),
        "arxiv": {a.id for a in ids.arxiv},
        "doi": {d.value for d in ids.dois},
    }


def _equal(field: str, gold: object, pred: object) -> bool:
    if field == "first_author":
        assert isinstance(gold, frozenset)
        words = [_fold(w) for w in re.findall(r"[^\W\d_]+", str(pred))]
        words = [w for w in words if w not in _PARTICLES]
        return bool(words) and all(w in gold for w in words)
    if field in ("title", "venue"):
        return normalize_title(str(gold)) == normalize_title(str(pred))
    if field in ("volume", "first_page"):
        return str(gold).strip().lower() == str(pred).strip().lower()
    return gold == pred


def score(examples: list[Example]) -> tuple[dict[str, Counter[str]], list[tuple]]:
    """Return TP/FP/FN counts per field and the disagreements."""
    counts: dict[str, Counter[str]] = {f: Counter() for f in FIELDS}
    misses: list[tuple] = []
    for ex in examples:
        got = predicted(parse_reference(ex.raw))
        for f in FIELDS:
            gold, pred = ex.gold[f], got[f]
            if f in ("arxiv", "doi"):
                assert isinstance(gold, set) and isinstance(pred, set)
                counts[f]["tp"] += len(gold & pred)
                counts[f]["fp"] += len(pred - gold)
                counts[f]["fn"] += len(gold - pred)
                if gold != pred:
                    misses.append((f, ex, sorted(gold), sorted(pred)))
                continue
            if gold is not None and pred is not None and _equal(f, gold, pred):
                counts[f]["tp"] += 1
                continue
            counts[f]["fp"] += pred is not None
            counts[f]["fn"] += gold is not None
            if gold is not None or pred is not None:
                misses.append((f, ex, gold, pred))
    return counts, misses


def prf(c: Counter[str]) -> tuple[float, float, float]:
    """Return precision, recall and F1 of TP/FP/FN counts."""
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def report(name: str, examples: list[Example], show: str | None) -> bool:
    """Print the table for one split; return whether the identifier targets are met."""
    counts, misses = score(examples)
    print(f"{name}: {len(examples):,} citations")
    print(f"{'field':<13}{'precision':>10}{'recall':>9}{'F1':>8}{'TP':>7}{'FP':>6}{'FN':>6}")
    ok = True
    for f in FIELDS:
        c = counts[f]
        p, r, f1 = prf(c)
        print(f"{f:<13}{p:>10.3f}{r:>9.3f}{f1:>8.3f}{c['tp']:>7}{c['fp']:>6}{c['fn']:>6}")
        if f in ("arxiv", "doi"):
            ok = ok and r >= 0.99 and p >= 0.99
    if show:
        for f, ex, gold, pred in misses:
            if f == show:
                print(f"\n{ex.key}\n  raw:  {ex.raw}\n  gold: {gold!r}\n  got:  {pred!r}")
    return ok


def main() -> int:
    """Score the parser on the dev split and on the held-aside fold."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--split", choices=("dev", "fold", "both"), default="both")
    ap.add_argument("--show", choices=FIELDS)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus} (set --corpus or $CITEREC_GROBID_CORPUS)")
        return 2
    examples = list(load_corpus(args.corpus))
    splits = {
        "dev": [e for e in examples if not e.in_fold],
        "fold": [e for e in examples if e.in_fold],
    }
    ok = True
    for name in ("dev", "fold") if args.split == "both" else (args.split,):
        ok = report(f"grobid corpus, {name} split", splits[name], args.show) and ok
        print()
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
