"""Journal names and journal references: one key per journal, however it is written.

"Physical Review D", "Phys. Rev. D" and "Phys.Rev.D" all become the key "physrevd": each word is
abbreviated by the ISSN's List of Title Word Abbreviations (LTWA, shipped by pyiso4), stop words
are dropped and the rest is glued. Physics writes many journals its own way, which the LTWA
cannot derive ("A&AS", "ApJ", "MNRAS", "PRL", "JHEP", "Sov. Phys. JETP", "Nucl. Phys. (Proc.
Suppl.)"): a name that INSPIRE's journal list (the journal-titles knowledge base that INSPIRE's
refextract package ships, 7,648 written forms of 3,193 journals) knows is first replaced by
INSPIRE's short title, and every form that list gives is looked for in reference strings.
(The list is read from the installed refextract package as data, pinned in pyproject.toml; the
package, GPL-2.0-or-later, is never imported. A 2-letter form such as "AJ" counts only as a
word of its own.)
A journal reference ("Phys.Rev.D65:094516,2002", "Nucl. Phys.
B 393 (1993) 377-400") becomes a Locator: venue key, volume and first page.
"""

from __future__ import annotations

import importlib.metadata
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from unidecode import unidecode

_INSPIRE_KB = "refextract/references/kbs/journal-titles.kb"
_MIN_GLUED = 3  # shorter written forms ("AJ") count only as a word of their own, never glued
# Words, split where PDF extraction glued them by case too ("NuovoCimento", "EnergyPhys"); an
# ampersand acronym ("A&AS", "A & A") is one word.
_TOKEN = re.compile(r"[A-Z]+&[A-Z]+|[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_AMPERSAND = re.compile(r"(?<=[A-Z])\s*&\s*(?=[A-Z])")
_YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")
# Numbers PDF extraction or a house style glued to words: a journal to its volume
# ("Letters19", "JHEP0908"), a year to a "V" volume ("1991V349"). A single letter glued to a
# number stays: it is a series or a page letter ("B91", "L12", "A16").
_GLUED_NUMBER = re.compile(r"(?<=[A-Za-z]{2})(?=\d)|(?<=\d)[Vv](?=\d)")
# A venue may hold parenthesised words ("Nucl. Phys. (Proc. Suppl.)", "Ann. Phys. (N.Y.)").
_VENUE_PART = r"(?:[^\d(]|\([^\d()]*\))"
# venue, an optional series letter glued to the volume ("B393"), volume, optional "(year)",
# first page (optionally a letter, "L155"); what the arXiv journal-ref field holds.
_JOURNAL_REF = re.compile(
    rf"^\s*(?P<venue>{_VENUE_PART}*?[A-Za-z.]{_VENUE_PART}*?)\s*(?P<volume>\d{{1,5}})\s*"
    r"(?:\(\s*(?P<year>(?:1[89]|20)\d\d)\s*\))?\s*(?:[,:]\s*)?(?:no\.\s*\d+\s*,?\s*)?"
    r"(?:pp?\.\s*)?(?P<page>[A-Za-z]?\d{1,7})\b"
)


@cache
def _ltwa() -> Any:
    """Return the LTWA abbreviator and its stop words (loaded once per process, about 0.6 s)."""
    from pyiso4.ltwa import Abbreviate

    return Abbreviate.create()


def load_tables() -> None:
    """Load the journal-name tables (LTWA, INSPIRE's journal list: about 0.8 s) now rather than
    at the first venue compared. A worker process loads them before it freezes what it keeps
    for life (citerec/celery.py): its first job does not pay for them, and the garbage
    collector never walks their objects."""
    _stopwords()
    _inspire()


@cache
def _stopwords() -> frozenset[str]:
    return frozenset(w.lower() for w in _ltwa().stopwords) | {"the", "a", "an", "and", "of"}


_NOT_KEY_CHARS = re.compile(r"[^a-z0-9]")
_NOT_KB_CHARS = re.compile(r"[^A-Z0-9&]+")


@lru_cache(maxsize=200_000)
def word_key(word: str) -> str:
    """Return the LTWA abbreviation of one word, lower case, letters and digits only ("" = drop)."""
    folded = unidecode(word)
    lower = folded.lower()
    if "&" in folded:
        return _NOT_KEY_CHARS.sub("", lower)  # "A&AS": an acronym, never abbreviated
    if len(folded) == 1 and folded.isupper():
        return lower  # a series letter ("Phys. Rev. A"), not the article "a"
    if lower in _stopwords() or not folded:
        return ""
    if lower.isdigit() or len(lower) <= 2:
        return lower
    from pyiso4.ltwa import Pattern

    # The guide is padded: an abbreviation may be longer than a short word it matches.
    abbreviated, _ = _ltwa().abbreviate(Pattern.normalize(folded), folded, folded.ljust(40))
    return _NOT_KEY_CHARS.sub("", abbreviated.lower()) or lower


def _kb_name(name: str) -> str:
    """Return a journal name as INSPIRE's list writes its forms ("A&A SUPPL SER", "PHYS REV D")."""
    text = _AMPERSAND.sub("&", unidecode(name).upper())
    return " ".join(_NOT_KB_CHARS.sub(" ", text).split())


@cache
def _inspire() -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    """Return INSPIRE's short title of each written form, and the written forms of each key."""
    path = importlib.metadata.distribution("refextract").locate_file(_INSPIRE_KB)
    short_of: dict[str, str] = {}
    forms: dict[str, set[str]] = {}
    for line in open(str(path), encoding="utf-8"):
        written, _, short = line.strip().partition("---")
        if not short:
            continue
        short_of.setdefault(_kb_name(written), short.strip())
        short_of.setdefault(_kb_name(short), short.strip())
    for written, short in short_of.items():
        forms.setdefault(_plain_key(short), set()).add(_plain_key(written))
    return short_of, {key: frozenset(keys) for key, keys in forms.items()}


def _plain_key(name: str) -> str:
    tokens = [w for w in _TOKEN.findall(_AMPERSAND.sub("&", name or "")) if not w.isdigit()]
    words = [word_key(w) for w in tokens]
    if sum(1 for w in words if w) == 1 and len(tokens) == 1:
        return unidecode(tokens[0]).lower()[:128]
    return "".join(w for w in words if w)[:128]


@lru_cache(maxsize=50_000)
def venue_key(name: str) -> str:
    """Return the journal key of a journal name or abbreviation ("" when there is none).

    A one-word name is kept whole, as ISO 4 does ("Europace", "Nature", "Blood"). A name that
    INSPIRE's journal list knows is keyed by its short title there ("A&AS" = "Astron.
    Astrophys. Suppl. Ser.", "PRL" = "Phys. Rev. Lett.").
    """
    written = _kb_name(name or "")
    short_of = _inspire()[0]
    short = short_of.get(written) or short_of.get(written.replace("&", ""))
    return _plain_key(short or name)


# Where a container title's main title ends: a section or subtitle ("Biochimica et Biophysica
# Acta (BBA) - Molecular Cell Research", "Journal of Geophysical Research: Atmospheres"), or a
# place ("International Journal of Obesity (London)").
_MAIN_TITLE_END = re.compile(r"\s*(?:\(|:|\s[-–—]\s|\.\s+[A-Z][a-z]+:)")


@cache
def _ltwa_phrases() -> tuple[re.Pattern[str], dict[str, str]]:
    """Return a pattern of the LTWA's English multi-word entries and their abbreviations
    ("New England" -> "N. Engl."): the word-by-word key misses them, and abbreviating a whole
    title with pyiso4 costs about 0.1-10 ms a title (and fails on some)."""
    path = importlib.metadata.distribution("pyiso4").locate_file("pyiso4/LTWA_20210702.csv")
    phrases: dict[str, str] = {}
    with open(str(path), encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            word, abbreviation, languages = (line.rstrip("\n").split("\t") + ["", ""])[:3]
            word = word.strip()
            if " " not in word or word.endswith("-") or abbreviation.strip() in _NOT_ABBREVIATED:
                continue
            if {"eng", "mul"} & {lang.strip() for lang in languages.split(",")}:
                phrases.setdefault(word.lower(), abbreviation.strip())
    alternatives = "|".join(re.escape(w) for w in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE), phrases


_NOT_ABBREVIATED = {"n.a.", "n. a.", "n.a", ""}


def _abbreviated_phrases(name: str) -> str:
    pattern, phrases = _ltwa_phrases()
    return pattern.sub(lambda m: phrases.get(m.group(0).lower(), m.group(0)), name)


def _key_without_stopwords(name: str) -> str:
    """Return the key of a name leaving out words abbreviated to a stop word ("Edition" is
    "Ed.", which the key of "Int. Ed." drops as a stop word)."""
    tokens = [w for w in _TOKEN.findall(_AMPERSAND.sub("&", name)) if not w.isdigit()]
    return "".join(k for k in map(word_key, tokens) if k and k not in _stopwords())[:128]


@lru_cache(maxsize=50_000)
def journal_keys(name: str) -> tuple[str, ...]:
    """Return every key a journal name may be written under: venue_key of the name; of the name
    with the LTWA's phrases abbreviated ("New England" is "N. Engl.", so "N Engl J Med" is the
    New England Journal of Medicine) and without words abbreviated to a stop word; and the same
    of its main title without a section, subtitle or place (the string may print "Biochim
    Biophys Acta" for "Biochimica et Biophysica Acta (BBA) - Molecular Cell Research").
    """
    if not name:
        return ()
    names = [name]
    main = _MAIN_TITLE_END.split(name, maxsplit=1)[0].strip()
    if main and main != name:
        names.append(main)
    keys = []
    for written in names:
        abbreviated = _abbreviated_phrases(written)
        keys += [venue_key(written), venue_key(abbreviated), _key_without_stopwords(abbreviated)]
    return tuple(k for k in dict.fromkeys(keys) if len(k) >= 2)


def written_forms(key: str) -> frozenset[str]:
    """Return the keys of every form INSPIRE's list writes the journal of `key` in."""
    return _inspire()[1].get(key, frozenset())


# A number OCR damaged with letters that look like digits: "29O", "l69", "200O" (one digit at
# least, so words such as "Ol" or "II" stay words).
_OCR_NUMBER = re.compile(r"(?<![A-Za-z0-9])(?=[0-9OolI]*[0-9])[0-9OolI]{2,}(?![A-Za-z0-9])")
_OCR_DIGITS = str.maketrans("OolI", "0011")
# Digits split by one OCR space inside a number: "12 26–1233" (the page 1226).
_SPLIT_NUMBER = re.compile(r"(?<![\d.,;:])(\d{1,3}) (\d{1,3})(?=[–—-]\d)")


def ocr_digits(raw: str) -> str:
    """Return the string with look-alike letters inside numbers read as digits ("29O": 290)."""
    return _OCR_NUMBER.sub(lambda m: m.group(0).translate(_OCR_DIGITS), raw)


def split_numbers(raw: str) -> list[str]:
    """Return the numbers an OCR space split before a page range's dash, joined ("1226")."""
    return [a + b for a, b in _SPLIT_NUMBER.findall(raw)]


def unglue_numbers(raw: str) -> str:
    """Return the string with volumes split from the words glued to them ("JHEP0908")."""
    return _GLUED_NUMBER.sub(" ", raw)


_NUMBER = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]?\d+)(?![0-9])")
_RANGE_END = re.compile(r"\d\s*[-–—]\s*[A-Za-z]?$")
_MONTH_VOLUME = re.compile(r"^(0?[1-9]|1[0-2])$")
_CENTURY_YEAR = re.compile(r"^(?:19|20)(\d\d)$")
_PAIR_WINDOW = 3  # a first page is at most this many numbers after its volume ("393 (1993) 377")


def locator_pairs(raw: str, *, unglued: bool = False) -> list[tuple[str, str]]:
    """Return the (volume, first page) pairs the string's numbers could be.

    A series letter glued to a volume ("Phys. Rev. D60", "Nucl.Phys.B407") belongs to the
    journal, so a lettered number is read as a volume by its digits; as a page it keeps its
    letter ("A&A 571, A16"). The end of a page range ("25:25-45") is never a first page. A
    month volume before a year ("JHEP 01 (2017) 110") is also read as the year-month volume
    INSPIRE and arXiv give those journals ("1701"). unglued: the string is already
    unglue_numbers' output.
    """
    raw = raw if unglued else unglue_numbers(raw)
    numbers = []
    for m in _NUMBER.finditer(raw):
        value = page_key(m.group(1))
        if value and len(value) <= 8:
            last = _RANGE_END.search(raw, max(0, m.start() - 6), m.start()) is not None
            numbers.append((value, value.lstrip("abcdefghijklmnopqrstuvwxyz"), last))
    pairs: list[tuple[str, str]] = []
    for i, (_, volume, _) in enumerate(numbers):
        if not volume:
            continue
        after = numbers[i + 1 : i + 1 + _PAIR_WINDOW]
        volumes = [volume]
        if _MONTH_VOLUME.match(volume):
            year = next((y for y in (_CENTURY_YEAR.match(n) for n, _, _ in after) if y), None)
            volumes += [f"{year.group(1)}{int(volume):02d}".lstrip("0")] if year else []
        for page, _, last in after:
            if not last:
                pairs.extend((v, page) for v in volumes)
    return pairs


_PAGE_KEY = re.compile(r"([a-z]?)0*(\d+)")


@lru_cache(maxsize=65_536)  # called for every number of every candidate checked: they repeat
def page_key(page: str) -> str:
    """Return a first page or volume for comparison: lower case, leading zeros dropped."""
    text = (page or "").strip().lower()
    match = _PAGE_KEY.match(text)
    return f"{match.group(1)}{match.group(2)}"[:32] if match else text[:32]


def first_page(pages: str) -> str:
    """Return the first page of a Crossref page range ("496-7" -> "496")."""
    return page_key(re.split(r"[-–—,]", pages or "")[0])


@dataclass(frozen=True)
class Locator:
    """Where a work was published: journal key, volume, first page (and the year given)."""

    venue_key: str
    volume: str
    first_page: str
    year: int | None = None


def parse_journal_ref(text: str) -> Locator | None:
    """Return the locator of an arXiv journal-ref, or None when it gives no venue/volume/page."""
    if not text:
        return None
    match = _JOURNAL_REF.match(text)
    if not match:
        return None
    venue = match.group("venue")
    key = venue_key(venue)
    if len(key) < 2:
        return None
    years = _YEAR.findall(text)
    year = match.group("year") or (years[-1] if years else None)
    return Locator(key, page_key(match.group("volume")), page_key(match.group("page")),
                   int(year) if year else None)  # fmt: skip


class VenueText:
    """The abbreviated words of a reference string, to find a journal key in it."""

    def __init__(self, raw: str) -> None:
        self.glued = ""
        tokens = _TOKEN.findall(_AMPERSAND.sub("&", raw) if "&" in raw else raw)
        self.words = {(w if w.isascii() else unidecode(w)).lower() for w in tokens}
        self.starts: set[int] = set()
        self.ends: set[int] = set()
        for word in tokens:
            if word.isdigit():
                continue
            key = word_key(word)
            if not key:
                continue
            self.starts.add(len(self.glued))
            self.glued += key
            self.ends.add(len(self.glued))

    def contains(self, key: str) -> bool:
        """Return whether the journal key is written in the string on word boundaries."""
        if not key:
            return False
        if key in self.words:
            return True
        return self._glued(key) or any(
            k in self.words or (len(k) >= _MIN_GLUED and self._glued(k)) for k in written_forms(key)
        )

    def _glued(self, key: str) -> bool:
        start = self.glued.find(key)
        while start >= 0:
            if start in self.starts and start + len(key) in self.ends:
                return True
            start = self.glued.find(key, start + 1)
        return False
