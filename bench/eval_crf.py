"""Rule parser vs a trained CRF (python-crfsuite) on the GROBID citation corpus, field F1 per tag.

Usage: python bench/eval_crf.py [--corpus DIR] [--iterations 100] [--model FILE] [--by-file]

Issue 13 asks whether to keep the rule parser or train a sequence model, as GROBID, anystyle and
ParsCit do, and to decide by measurement. This trains a linear-chain CRF on the dev split of the
corpus (4/5; the fold rule of bench/eval_corpus.py) with quick token features (the word, its
shape, prefixes and suffixes, punctuation, position, the neighbouring two words each side) and
labels from the TEI tags (author, title, venue, date, volume, page, identifier, other). Fields
are read back from the labelled tokens and scored exactly as eval_corpus.py scores the rule
parser (same gold, same equality), on the held-aside fold; the rule parser's figures on the
same citations are printed beside. Also prints each's parse speed.

python-crfsuite is a development dependency only (pyproject [dev]); the product does not use it.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval_corpus import (  # noqa: E402
    DEFAULT_CORPUS,
    FIELDS,
    TEI,
    Example,
    _equal,
    _gold,
    _local,
    predicted,
    prf,
)

from curation.references import parse_reference  # noqa: E402

_TOKEN = re.compile(r"\w+|[^\w\s]")
_INITIAL = re.compile(r"^[A-Z]$|^[A-Z][a-z]?$")
_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)[a-z]?$")


def _label(el: etree._Element, inherited: str) -> str:
    name = _local(el.tag)
    if name in ("author", "orgName", "editor"):
        return "author" if name != "editor" else "other"
    if name == "title":
        level = el.get("level") or el.get("leve") or ""
        return {"a": "title", "m": "title", "j": "venue", "s": "venue"}.get(level, "other")
    if name == "date":
        return "date"
    if name in ("biblScope", "biblStruct"):
        unit = (el.get("unit") or el.get("type") or "").lower()
        unit = {"vol": "volume", "pp": "page", "pages": "page"}.get(unit, unit)
        return unit if unit in ("volume", "page") else "other"
    if name in ("idno", "ptr"):
        return "ident"
    if name in ("publisher", "pubPlace", "note"):
        return "other"
    return inherited


def _pieces(el: etree._Element, label: str, out: list[tuple[str, str]]) -> None:
    own = _label(el, label)
    if el.text:
        out.append((el.text, own))
    for child in el:
        if isinstance(child.tag, str):
            _pieces(child, own, out)
        if child.tail:
            out.append((child.tail, own))


def labelled_corpus(directory: Path) -> list[tuple[Example, list[str], list[str]]]:
    """Return (example, tokens, labels) per citation, keyed and folded as eval_corpus.py does."""
    parser = etree.XMLParser(remove_comments=True, recover=True, resolve_entities=False)
    found = []
    for path in sorted(directory.glob("*.xml")):
        root = etree.parse(str(path), parser).getroot()
        if root is None:
            continue
        for index, bibl in enumerate(root.iter(f"{TEI}bibl", "bibl")):
            raw = " ".join("".join(bibl.itertext()).split())
            if not raw:
                continue
            pieces: list[tuple[str, str]] = []
            _pieces(bibl, "other", pieces)
            tokens, labels = [], []
            for text, label in pieces:
                for tok in _TOKEN.findall(text):
                    tokens.append(tok)
                    labels.append(label)
            found.append((Example(f"{path.name}#{index}", raw, _gold(bibl)), tokens, labels))
    return found


def _shape(tok: str) -> str:
    s = re.sub(r"[A-Z]", "A", tok)
    s = re.sub(r"[a-z]", "a", s)
    s = re.sub(r"\d", "9", s)
    return re.sub(r"(.)\1+", r"\1\1", s)


def features(tokens: list[str]) -> list[list[str]]:
    """Return the feature strings of each token (quick ones: word, shape, affixes, context)."""
    n = len(tokens)
    base = []
    for tok in tokens:
        lower = tok.lower()
        base.append([
            f"w={lower}", f"sh={_shape(tok)}", f"p3={lower[:3]}", f"s3={lower[-3:]}",
            f"len={min(len(tok), 8)}", f"year={bool(_YEAR.match(tok))}",
            f"init={bool(_INITIAL.match(tok))}", f"dig={tok.isdigit()}",
        ])  # fmt: skip
    out = []
    for i in range(n):
        f = list(base[i])
        f.append(f"pos={min(10, i * 10 // max(n, 1))}")
        for d in (-2, -1, 1, 2):
            j = i + d
            if 0 <= j < n:
                f.append(f"{d}:w={tokens[j].lower()}")
                f.append(f"{d}:sh={_shape(tokens[j])}")
            else:
                f.append(f"{d}:edge")
        out.append(f)
    return out


def _spans(tokens: list[str], labels: list[str], want: str) -> list[list[str]]:
    spans: list[list[str]] = []
    previous = None
    for tok, label in zip(tokens, labels, strict=True):
        if label == want:
            if previous != want:
                spans.append([])
            spans[-1].append(tok)
        previous = label
    return spans


def _join(tokens: list[str]) -> str:
    text = " ".join(tokens)
    return re.sub(r"\s+([,.;:)\]])", r"\1", re.sub(r"([(\[])\s+", r"\1", text)).strip(" ,.;:")


def crf_fields(tokens: list[str], labels: list[str]) -> dict[str, object]:
    """Return the scored fields from a labelled token sequence."""

    def first(want: str) -> list[str] | None:
        spans = _spans(tokens, labels, want)
        return max(spans, key=len) if spans and want in ("title", "venue") else (
            spans[0] if spans else None)  # fmt: skip

    title, venue, author = first("title"), first("venue"), first("author")
    date, volume, page = first("date"), first("volume"), first("page")
    surname = None
    if author:
        head: list[str] = []
        for tok in author:
            if tok in (",", ";", "&") or tok.lower() == "and":
                if any(len(t) > 2 for t in head):
                    break
            head.append(tok)
        words = [t for t in head if t.isalpha() and not _INITIAL.match(t) and len(t) > 1]
        surname = max(words, key=len) if words else None
    year = next((int(t[:4]) for t in date or [] if _YEAR.match(t)), None)
    return {
        "title": _join(title) if title else None,
        "first_author": surname,
        "year": year,
        "venue": _join(venue) if venue else None,
        "volume": next((t for t in volume or [] if t.isalnum()), None),
        "first_page": next((t for t in page or [] if t.isalnum()), None),
    }


def _count(
    counts: dict[str, Counter[str]], gold: dict[str, object], got: dict[str, object]
) -> None:
    for f in FIELDS[:6]:
        g, p = gold[f], got[f]
        if g is not None and p is not None and _equal(f, g, p):
            counts[f]["tp"] += 1
        else:
            counts[f]["fp"] += p is not None
            counts[f]["fn"] += g is not None


def main() -> int:
    """Train on dev, score CRF and rules on the held-aside fold."""
    import pycrfsuite

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--model", type=Path, help="keep the trained model here")
    ap.add_argument("--by-file", action="store_true",
                    help="hold aside whole files (sha1(file name) %% 5 == 0) instead of citations, "
                         "so no citation of a held file's style is trained on")  # fmt: skip
    args = ap.parse_args()
    data = labelled_corpus(args.corpus)

    def held(example: Example) -> bool:
        if not args.by_file:
            return example.in_fold
        name = example.key.rsplit("#", 1)[0]
        return int(hashlib.sha1(name.encode()).hexdigest(), 16) % 5 == 0

    dev = [d for d in data if not held(d[0])]
    fold = [d for d in data if held(d[0])]
    print(f"corpus: {len(data):,} citations; dev {len(dev):,}, fold {len(fold):,}")
    trainer = pycrfsuite.Trainer(verbose=False)
    for _, tokens, labels in dev:
        trainer.append(features(tokens), labels)
    trainer.set_params({"c1": 0.1, "c2": 0.01, "max_iterations": args.iterations,
                        "feature.possible_transitions": True})  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = str(args.model or Path(tmp) / "citation.crfsuite")
        started = time.process_time()
        trainer.train(path)
        print(
            f"trained in {time.process_time() - started:.0f} s CPU ({args.iterations} iterations)"
        )
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        crf: dict[str, Counter[str]] = {f: Counter() for f in FIELDS[:6]}
        rules: dict[str, Counter[str]] = {f: Counter() for f in FIELDS[:6]}
        token_right = token_total = 0
        crf_seconds = rule_seconds = 0.0
        for example, tokens, labels in fold:
            started = time.process_time()
            guess = tagger.tag(features(tokens))
            got = crf_fields(tokens, guess)
            crf_seconds += time.process_time() - started
            token_right += sum(g == w for g, w in zip(guess, labels, strict=True))
            token_total += len(labels)
            _count(crf, example.gold, got)
            started = time.process_time()
            parsed = predicted(parse_reference(example.raw))
            rule_seconds += time.process_time() - started
            _count(rules, example.gold, parsed)
    print(f"fold token accuracy (CRF): {token_right / token_total:.3f}")
    print(f"{'field':<13}{'rules P':>9}{'R':>7}{'F1':>7}   {'CRF P':>7}{'R':>7}{'F1':>7}")
    for f in FIELDS[:6]:
        rp, rr, rf = prf(rules[f])
        cp, cr, cf = prf(crf[f])
        print(f"{f:<13}{rp:>9.3f}{rr:>7.3f}{rf:>7.3f}   {cp:>7.3f}{cr:>7.3f}{cf:>7.3f}")
    n = len(fold)
    print(f"speed (CPU, fold): rules {n / rule_seconds:,.0f} refs/s; CRF features + tagging "
          f"{n / crf_seconds:,.0f} refs/s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
