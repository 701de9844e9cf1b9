"""Full journal names for the every-style evaluation, derived from the abbreviations glutton-dev
gives ("Gastrointest Endosc" -> "Gastrointestinal Endoscopy").

glutton-dev's gold has only the NLM-style abbreviation of each journal, and no package at hand
lists NLM titles with their abbreviations, so a full name is made word by word from data at
hand (bench/README-styles.md says why and what it cannot test):

- an English (or multi-language) full-word entry of the LTWA (pyiso4's
  LTWA_20210702.csv) whose abbreviation is the word ("J" <- "journal", "Natl" <- "national");
- else the most frequent word of the gold works' titles that starts with the abbreviated word
  and that the LTWA abbreviates to it ("Gastrointest" <- "gastrointestinal", "Med" <- "medical");
- else the word as printed (a full word already, "Endoscopy"; a foreign one, "Dtsch").

"of" follows a leading "Journal", "Annals", "Archives", "Proceedings", "Bulletin" or
"Transactions" when more words follow, as real full names read ("Journal of Virology").
Deterministic; the held fold's titles are used too (its title *words*, never its figures).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterable
from functools import cache
from importlib.metadata import distribution

_WORD = re.compile(r"[A-Za-z]+")
_NOUN = re.compile(r"(?:y|ics|ine|ion|ance|ence|ery|ism|ure|ist|ists|s)$")
_ADJECTIVE = re.compile(r"(?:al|ic|an|ive|ish|ary|ory)$")
_OF_AFTER = {"journal", "annals", "archives", "proceedings", "bulletin", "transactions"}


@cache
def _ltwa_full_words() -> dict[str, str]:
    """Return {abbreviation without stop, lower case: the first English full word it abbreviates}."""
    path = distribution("pyiso4").locate_file("pyiso4/LTWA_20210702.csv")
    found: dict[str, str] = {}
    with open(str(path), encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        for word, abbreviation, languages in reader:
            langs = {lang.strip() for lang in languages.split(",")}
            if word.endswith("-") or word.startswith("-") or not langs & {"eng", "mul"}:
                continue
            if abbreviation in ("n.a.", "n. a.", "n.a") or " " in word:
                continue
            key = abbreviation.rstrip(".").lower()
            if key and key != word.lower():
                found.setdefault(key, word.lower())
    return found


class JournalNames:
    """Full names of abbreviated journal names, from the LTWA and a title vocabulary."""

    def __init__(self, titles: Iterable[str]) -> None:
        self.vocabulary = Counter(w.lower() for t in titles for w in _WORD.findall(t))
        self._words: dict[tuple[str, str], str] = {}

    def word(self, abbreviated: str, position: str = "") -> str:
        """Return the full word of one abbreviated word (the word itself when none is found):
        the name's last word preferably a noun ("Urology"), its first "Journal", "Archives",
        ... where one fits, the others adjectives ("British")."""
        if (abbreviated, position) not in self._words:
            self._words[abbreviated, position] = self._expand(abbreviated, position)
        return self._words[abbreviated, position]

    def _expand(self, abbreviated: str, position: str) -> str:
        from curation.resolution.venues import word_key

        lower = abbreviated.lower()
        if abbreviated.islower() or len(lower) <= 1 and lower != "j":
            return abbreviated  # "of", "and", a series letter
        if lower in self.vocabulary and len(lower) >= 5:
            return abbreviated  # a full word already ("Endoscopy", "Blood"); shorter ones
            # ("Sci", "Free") stay only when no title word abbreviates to them
        full = _ltwa_full_words().get(lower)
        if full is None:
            key = word_key(abbreviated)
            starting = [w for w in self.vocabulary if w.startswith(lower) and len(w) > len(lower)]
            wanted = _NOUN if position == "last" else _ADJECTIVE
            starting.sort(key=lambda w: (not (position == "first" and w in _OF_AFTER),
                                         not wanted.search(w), -self.vocabulary[w], w))  # fmt: skip
            full = next((w for w in starting if word_key(w) == key), None)
            if full is not None and self.vocabulary[lower] >= self.vocabulary[full]:
                full = None  # a title word more common than its expansion: "Free"
        if full is None:
            return abbreviated
        return full.capitalize() if abbreviated[:1].isupper() else full

    def full(self, journal: str) -> str:
        """Return the full name of a journal abbreviation ("J Virol" -> "Journal of Virology")."""
        printed = journal.replace(".", " ").split()
        if len(printed) < 2:
            return journal  # a one-word title is not abbreviated (ISO 4): "Cell", "Gut"
        at = {0: "first", len(printed) - 1: "last"}
        words = [self.word(w, at.get(n, "")) for n, w in enumerate(printed)]
        if len(words) > 1 and words[0].lower() in _OF_AFTER and words[1].lower() != "of":
            words.insert(1, "of")
        return " ".join(words)
