"""Crossref catalogues of any size around the glutton-dev gold, in two shapes (bench only).

Used by bench/bench_resolve_scale.py. Both shapes hold the same planted gold: one Crossref work
per glutton-dev gold DOI (as bench/real_catalogue.py makes it), except the quarter `left_out`
(sha1 of the DOI), whose reference strings must then stay unlinked. The rest, up to N works:

- "dense": look-alikes around every gold work, the left-out ones included (the worst case):
  near-identical titles (one word swapped, dropped or added) in the same journal and volume,
  titles mixing the gold's words with a peer's, the same first author, the same volume and
  first page in another journal. The gold's exact title is copied into at most one other work
  per gold work at every size (real Crossref seldom repeats a long title; a copy per look-alike
  would make a 10M catalogue hold 170 works of each gold title, which no ranking can tell
  apart by title). Near-identical and shared-word titles grow with N.
- "real": works shaped like the population: titles from a word model of the gold titles
  (bigrams of real titles, else a Zipf draw over the gold words and a long tail of pseudo-words),
  title lengths as the gold's, journals drawn by the gold's journal counts (4,362 journals),
  1-8 authors with the gold's surnames, volumes, page ranges, years skewed recent.

Works are written as JSON lines files of PER_FILE works in a folder (the importer reads a folder
of them in parallel), deterministic for a shape and size.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_catalogue import vocabulary  # noqa: E402
from real_catalogue import (  # noqa: E402
    _alter_title,
    _mix_titles,
    _work,
    cited_year,
    held_aside,
    load_glutton,
)

PER_FILE = 250_000
NEGATIVE_PREFIX = "10.9999/neg."  # as real_catalogue's look-alikes: a link to one is wrong
SHAPES = ("dense", "real")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")


def left_out(doi: str) -> bool:
    """Return whether a gold work is kept out of the catalogue (its strings must stay unlinked)."""
    return int(hashlib.sha1(f"left-out:{doi.lower()}".encode()).hexdigest(), 16) % 4 == 0


def gold_works(refs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return the gold fields of every gold DOI (as real_catalogue.glutton_works reads them)."""
    gold: dict[str, dict[str, Any]] = {}
    for ref in refs:
        doi = ref["doi"].lower()
        if doi not in gold:
            surname = ref["first_author"] or (re.findall(r"[A-Z][A-Za-z'\-]+", ref["raw_string"])
                                              or [""])[0]  # fmt: skip
            gold[doi] = {"doi": doi, "title": ref["title"], "author": surname,
                         "journal": ref["journal"], "volume": ref["volume"],
                         "page": ref["first_page"], "year": cited_year(ref["raw_string"])}  # fmt: skip
    return gold


def reference_set(refs: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """Return `count` dev-fold references (the held fold is never used), a fixed sample.

    Each: id, raw, doi (the gold), present (False: its gold is left out, any link is wrong),
    conflicting (the data set gives the same string two or more gold DOIs)."""
    labels: dict[str, set[str]] = defaultdict(set)
    for r in refs:
        labels[r["raw_string"]].add(r["doi"].lower())
    dev = [r for r in refs if not held_aside(r["id"])]
    dev.sort(key=lambda r: hashlib.sha1(f"scale:{r['id']}".encode()).hexdigest())
    return [{"id": r["id"], "raw": r["raw_string"], "doi": r["doi"].lower(),
             "present": not left_out(r["doi"]),
             "conflicting": len(labels[r["raw_string"]]) > 1} for r in dev[:count]]  # fmt: skip


def _gold_items(gold: dict[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for g in gold.values():
        if not left_out(g["doi"]):
            yield _work(g["doi"], g["title"], g["author"], g["journal"], g["volume"], g["page"],
                        g["year"])  # fmt: skip


def dense_works(gold: dict[str, dict[str, Any]], total: int) -> Iterator[dict[str, Any]]:
    """Yield the gold works kept, then look-alikes around every gold work, `total` in all."""
    made = 0
    for work in _gold_items(gold):
        yield work
        made += 1
    golds = list(gold.values())
    by_journal: dict[str, list[dict[str, Any]]] = defaultdict(list)
    words: set[str] = set()
    for g in golds:
        by_journal[g["journal"]].append(g)
        words.update(_WORD.findall(g["title"]))
    vocab = sorted(words)
    authors = sorted({g["author"] for g in golds if g["author"]})
    journals = sorted(by_journal)
    for k in itertools.count():
        for g in golds:
            if made >= total:
                return
            yield _look_alike(g, k, golds, by_journal, vocab, authors, journals)
            made += 1


def _look_alike(g: dict[str, Any], k: int, golds: list[dict[str, Any]],
                by_journal: dict[str, list[dict[str, Any]]], vocab: list[str], authors: list[str],
                journals: list[str]) -> dict[str, Any]:  # fmt: skip
    """Return the k-th look-alike of gold work g."""
    rng = random.Random(f"{g['doi']}:{k}")
    doi = f"{NEGATIVE_PREFIX}{hashlib.sha1(g['doi'].encode()).hexdigest()[:12]}.{k}"
    # Another gold work of the journal (of any journal when it has one): never g itself, whose
    # title mixed with its own would be the gold title again.
    peers = [p for p in by_journal[g["journal"]] if p is not g]
    other = rng.choice(peers) if peers else golds[(golds.index(g) + 1) % len(golds)]
    year = g["year"]
    page = int(g["page"]) if g["page"].isdigit() else 100
    volume = g["volume"]
    kind = k % 4
    if kind == 0:  # near-identical title, same journal and volume, another page
        return _work(doi, _alter_title(g["title"], vocab, rng),
                     g["author"] if rng.random() < 0.5 else rng.choice(authors), g["journal"],
                     volume, str(page + rng.randint(1, 60)), year and year + rng.choice((0, 0, 1)))  # fmt: skip
    if kind == 1:  # same journal and volume, other page, a title mixing a peer's and the gold's
        return _work(doi, _mix_titles(other["title"], g["title"], rng), rng.choice(authors),
                     g["journal"], volume, str(max(1, page - rng.randint(1, 40))), year)  # fmt: skip
    if kind == 2:  # same first author, a title sharing half its words
        return _work(doi, _mix_titles(g["title"], other["title"], rng), g["author"], g["journal"],
                     str(int(volume) + 1) if volume.isdigit() else volume,
                     str(page + rng.randint(1, 300)), year and year + 1)  # fmt: skip
    if k == 3:  # the gold title exactly, another work (journal, year, author): once per gold
        return _work(doi, g["title"], rng.choice(authors), rng.choice(journals),
                     str(rng.randint(1, 300)), str(rng.randint(1, 2000)),
                     year and year - rng.randint(3, 12))  # fmt: skip
    # the same volume and first page in another journal
    return _work(doi, _mix_titles(other["title"], rng.choice(vocab), rng), rng.choice(authors),
                 rng.choice(journals), volume, g["page"], year)  # fmt: skip


class TitleModel:
    """Titles from the gold titles: their bigrams 70% of the time, else a Zipf draw over the
    gold words (most frequent first) followed by a tail of pseudo-words; lengths as the gold's."""

    def __init__(self, titles: list[str], rng: random.Random, tail: int = 150_000) -> None:
        counts: Counter[str] = Counter()
        follows: dict[str, list[str]] = defaultdict(list)
        self.lengths = []
        for title in titles:
            words = title.lower().split()
            if not words:
                continue
            self.lengths.append(len(words))
            counts.update(words)
            for a, b in itertools.pairwise(words):
                follows[a].append(b)
        self.follows = dict(follows)
        ranked = [w for w, _ in counts.most_common()]
        seen = set(ranked)
        ranked += [w for w in vocabulary(random.Random(5))[: tail * 2] if w not in seen][:tail]
        self.words = ranked
        self.cum = list(itertools.accumulate(1.0 / (rank + 10) for rank in range(len(ranked))))
        self.rng = rng

    def _zipf(self) -> str:
        at = bisect.bisect(self.cum, self.rng.random() * self.cum[-1])
        return self.words[min(at, len(self.words) - 1)]

    def title(self) -> str:
        """Return one generated title."""
        rng = self.rng
        length = max(1, rng.choice(self.lengths))
        words = [self._zipf()]
        while len(words) < length:
            nxt = self.follows.get(words[-1])
            words.append(rng.choice(nxt) if nxt and rng.random() < 0.7 else self._zipf())
        text = " ".join(words)
        return text[:1].upper() + text[1:]


def real_works(gold: dict[str, dict[str, Any]], total: int) -> Iterator[dict[str, Any]]:
    """Yield the gold works kept, then works shaped like the population, `total` in all."""
    made = 0
    for work in _gold_items(gold):
        yield work
        made += 1
    golds = list(gold.values())
    rng = random.Random(11)
    model = TitleModel([g["title"] for g in golds], rng)
    journal_counts = Counter(g["journal"] for g in golds if g["journal"])
    journals = sorted(journal_counts)
    journal_cum = list(itertools.accumulate(journal_counts[j] for j in journals))
    surname_counts = Counter(g["author"] for g in golds if g["author"])
    surnames = sorted(surname_counts)
    surname_cum = list(itertools.accumulate(surname_counts[s] for s in surnames))
    for n in itertools.count():
        if made >= total:
            return
        journal = journals[bisect.bisect(journal_cum, rng.random() * journal_cum[-1])]
        picks = rng.choices(
            surnames, cum_weights=surname_cum, k=rng.choice((1, 2, 3, 3, 4, 5, 6, 8))
        )
        first = rng.randint(1, 3000)
        year = 2025 - min(75, int(rng.expovariate(1 / 12)))
        work = _work(f"10.{5000 + n % 3000}/real.{n}", model.title(), "", journal,
                     str(rng.randint(1, 400)), f"{first}-{first + rng.randint(0, 20)}", year)  # fmt: skip
        work["author"] = [{"family": s, "given": rng.choice("ABCDEFGHJKLMNPRST") + "."}
                          for s in picks]  # fmt: skip
        yield work
        made += 1


def write_catalogue(shape: str, total: int, folder: Path) -> Path:
    """Write the shape's `total` works as JSON lines files into folder (once); return it."""
    done = folder / "DONE"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    gold = gold_works(load_glutton())
    works = dense_works(gold, total) if shape == "dense" else real_works(gold, total)
    for number in itertools.count():
        chunk = list(itertools.islice(works, PER_FILE))
        if not chunk:
            break
        with (folder / f"part-{number:04d}.jsonl").open("wb") as out:
            out.write(b"".join(orjson.dumps(w) + b"\n" for w in chunk))
    done.write_text(f"{shape} {total}\n")
    return folder
