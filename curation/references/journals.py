"""Find the journal reference in a citation: journal name, volume, first page and year.

The shapes are those of real reference lists (GROBID citation corpus):
- physics/INSPIRE "Phys. Rev. D 65, 094516 (2002)", "Phys.Rev.D85, 054512 (2012)";
- Elsevier "Nucl. Phys. B 393 (1993) 377";
- biomedicine "J. Biochem. 133:651-657", Vancouver "Auris Nasus Larynx. 2007; 34(4): 565-567";
- astronomy "2000, ApJ, 540, 39".
The name is abbreviated or not; the result keeps it as printed (normalising abbreviations is the
matcher's business).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from curation.references.sentences import ABBREVIATIONS
from curation.references.words import is_word

# One word of a journal name: "Phys.", "Rev", "ApJ", "A&A", "JHEP", a series letter "D".
_WORD = r"(?:[A-Z][A-Za-z&'’\-]*\.?|&)"
_LINK = r"(?:of|and|for|in|on|der|de|la|the|di|für|et)"
_NAME = rf"(?P<name>{_WORD}(?:(?:\s+|(?<=\.))(?:{_WORD}|{_LINK}(?=\s))){{0,9}})"
# A journal name starts a field: at the start, or after punctuation (never mid-phrase).
_LEAD = r"(?:^|(?<=[,.;:\])”’\"]\s)|(?<=[,.;:\])]))"
_VOL = r"(?P<vol>\d{1,5})"
_PAGE = r"(?P<page>[A-Z]?\d{1,7})(?!\d|\.\d)"
_YEAR = r"(?P<year>(?:1[6-9]|20)\d\d)"
_ISSUE = r"(?P<issue>\d{1,4})"
_PAREN_ISSUE = r"(?:\(\s*(?P<issue>[^)]{1,12}?)\s*\))?"  # "34(4)", "329(5998)", "12 (Suppl 2)"
# After a title with no punctuation before the journal ("…theories Nucl. Phys. B 514 523"), a
# name may start at a space when its first word is an abbreviation.
_SPACE_LEAD = r"(?:(?<=\s)(?=[A-Z][a-z]{1,8}\.\s*[A-Z]))"  # first word checked in _accept
# What follows the name in each shape, from the volume (or year) to the page.
_TAILS = (
    # Commun. ACM 51, 1 (Jan. 2008), 107–113: volume, issue, date, pages
    rf"\s*{_VOL}\s*,\s*{_ISSUE}\s*,?\s*(?:Article\s+\d+\s*)?\(\s*(?:[A-Z][a-z]+\.?\s+)?{_YEAR}\s*\)\s*,\s*{_PAGE}",
    # Phys. Rev. D 65, 094516 (2002) / Adv. Theor. Math. Phys. 2, 231 (1998)
    rf",?\s*{_VOL}\s*,\s*{_PAGE}(?:\s*[-–]+\s*[A-Z]?\d+)?\s*\(\s*(?:[A-Z][a-z]+\.?\s+)?{_YEAR}\s*\)",
    # Nucl. Phys. B 393 (1993) 377 / Trans. Amer. Math. Soc. 360 (2008), no. 6, 2849-2866
    rf",?\s*{_VOL}\s*,?\s*\(\s*{_YEAR}\s*\)\s*,?\s*(?:no\.\s*\d+\s*,\s*)?{_PAGE}",
    # Nucl. Phys., 1993, A561: 477 (Chinese physics journals)
    rf",\s*{_YEAR}\s*,\s*[A-Z]?{_VOL}\s*(?:\([^)]{{1,12}}\))?\s*:\s*{_PAGE}",
    # Auris Nasus Larynx. 2007; 34(4): 565-567 / Sci Rep. 2019 Jan 3;9:15054
    rf"\.?,?\s+{_YEAR}[^;:()]{{0,12}};\s*{_VOL}\s*{_PAREN_ISSUE}\s*:\s*{_PAGE}",
    # J. Biochem. 133:651-657 / Science 329(5998):1521
    rf"\s*{_VOL}\s*{_PAREN_ISSUE}\s*:\s*{_PAGE}",
    # ACS: J. Am. Chem. Soc. 2010, 132, 1234 / Int J Drug Policy 2008, 19 (9), 324–336
    # BMC: Genetica 2006, 127(1-3):217-229
    rf",?\s+{_YEAR}\s*,\s*{_VOL}\s*{_PAREN_ISSUE}\s*[,:]\s*{_PAGE}(?=\s*(?:[-–.,;(\[]|$))",
    # IOP: "Nucl. Phys. B 514 523-52", "Plasma Sources Sci. Technol. 20 045002"
    rf"\s+{_VOL}\s+{_PAGE}(?=\s*(?:[-–.,;(\[]|$))",
    # ApJ, 540, 39 / MNRAS 221, 53 / Nature 440, 315
    rf",?\s+{_VOL}\s*,\s*{_PAGE}(?=\s*(?:[-–.,;(\[]|$))",
)
# A character each shape needs: a cheap test skips the scan on most references.
_NEEDS = ("(", "(", "(", ":", ";", ":", ",", " ", ",")
_NEEDED = (" ", "(", ",", ":", ";")  # find_journal_ref tests them in this order
# The shapes possible for each combination of the needed characters present, in _NEEDED order.
_SHAPES_FOR = {
    present: [i for i, need in enumerate(_NEEDS) if present[_NEEDED.index(need)]]
    for present in itertools.product((False, True), repeat=len(_NEEDED))
}


_PATTERNS = [re.compile(f"(?:{_LEAD}|{_SPACE_LEAD}){_NAME}{tail}") for tail in _TAILS]


_GROUP_NAME = re.compile(r"\(\?P<\w+>")


def _marked(index: int) -> str:
    # The tail with its group names dropped (they repeat across tails), in a group naming it.
    return f"(?P<t{index}>{_GROUP_NAME.sub('(?:', _TAILS[index])})"


# _TAILS_FROM[k] matches where one of the tails k, k+1, … does and names the first of them (an
# alternation takes its first alternative that matches): the shapes whose tail matches at a
# place take one match each to find, plus one, instead of one per shape.
_TAILS_FROM = [
    re.compile("|".join(_marked(i) for i in range(k, len(_TAILS)))) for k in range(len(_TAILS))
]
# What a journal name is made of: its words, their stops and hyphens, and the spaces between
# them ("ü" is in "für", one of the linking words). Every shape follows the name with at most a
# comma and spaces before a number, so a name lies in a run of these characters that a number
# follows: scanning once for those runs is far cheaper than trying the patterns everywhere.
_NAME_CHARS = r"A-Za-z&'’\-.\sü"
# Only runs holding a capital or "&" are found: a name starts with one (_NAME_START), and most runs
# before a number (" ", ", pp. ", " and ") have none; each run found costs a match and a loop turn.
_NAME_RUN = re.compile(
    rf"(?<![{_NAME_CHARS}])(?=[{_NAME_CHARS}]*?[A-Z&])[{_NAME_CHARS}]++(?=,?\s*\d)"
)
# Where a name may start: the first character of _WORD after one of the field leads (_LEAD or
# _SPACE_LEAD); the patterns themselves check the lead exactly. The capital comes first so the
# scan jumps from capital to capital; the lookbehind then refuses one after any other character
# (at the text's start it sees one character only, and passes).
_NAME_START = re.compile(r"[A-Z&](?<![^,.;:\])\s][A-Z&])")
_ANCHOR = re.compile(r"\d\s*[,:;(\s]\s*\(?\s*[A-Z]?\d")
_MAX_NAME = 90
_GLUED_DOT = re.compile(r"\.(?=[A-Za-z])")
# A word before a stop. The word's first letter comes first, refused unless it starts the word,
# so the scan does not retry the word from each of its letters (the matches are the same: a
# stop after a word is always reached from the word's start).
_DOTTED = re.compile(r"([A-Za-z](?<![A-Za-z]{2})[A-Za-z]*+)\.\s*(?=\S)")
_NOT_JOURNAL = frozenset(
    "in vol vol. volume no no. pp pp. p. page pages and & the of a an chapter section part "
    "table fig fig. figure eq eq. ed. eds. edition issue".split()
)


# A journal name never ends in a linking word, nor in "vol".
_LAST_NOT_JOURNAL = frozenset(("vol", "of", "and", "for", "in", "on", "the", "to", "with"))
_YEAR_AS_VOLUME = re.compile(r"(?:1[89]|20)\d\d$")
_ISSUE_OR_MORE = re.compile(r"\s*[(,]")


@dataclass(frozen=True, slots=True)
class JournalRef:
    """A journal name with volume, first page and year, and where it sits in the text."""

    journal: str
    volume: str
    first_page: str
    year: int | None
    start: int
    end: int
    issue: str | None = None


def find_journal_ref(text: str) -> JournalRef | None:
    """Return the first journal reference in the text, or None."""
    anchor = _ANCHOR.search(text)
    if anchor is None:
        return None
    # Every shape has a volume followed by a page or year; names are far shorter than this window.
    pos = max(0, anchor.start() - _MAX_NAME)
    shapes = _SHAPES_FOR[(" " in text, "(" in text, "," in text, ":" in text, ";" in text)]
    # Earliest match wins; on a tie the earlier (more specific) shape does. Each pattern is tried
    # where a name can start, in order, as its finditer would meet them: a rejected match hides
    # the starts inside it from that pattern (finditer's matches never overlap).
    free = dict.fromkeys(shapes, pos)
    for run in _NAME_RUN.finditer(text):
        if run.end() <= pos:
            continue
        starts = _NAME_START.finditer(text, max(pos, run.start()), run.end())
        first = next(starts, None)
        if first is None:
            continue
        tails = _tails_at(text, _name_ends(text, run))
        viable = [i for i in shapes if i in tails]
        for capital in itertools.chain((first,), starts) if viable else ():
            start = capital.start()
            for i in viable:
                if start < free[i]:
                    continue
                m = _PATTERNS[i].match(text, start)
                if m is None:
                    continue
                free[i] = m.end()
                found = _accept(m)
                if found:
                    return found
    return None


def _tails_at(text: str, ends: tuple[int, ...]) -> set[int]:
    """Return the shapes whose tail matches at one of these places."""
    found: set[int] = set()
    for q in ends:
        first = 0
        while first < len(_TAILS) and (m := _TAILS_FROM[first].match(text, q)):
            shape = int(m.lastgroup[1:])  # type: ignore[index]
            found.add(shape)
            first = shape + 1
    return found


def _name_ends(text: str, run: re.Match[str]) -> tuple[int, ...]:
    """Return where a name in this run of name characters may end.

    What follows a name before the number is at most a stop, a comma and spaces (the comma ends
    the run), so a name that matches runs to the run's trailing stops and spaces; it ends in a
    letter or in one stop, never in a space. A shape whose tail matches at none of these places
    cannot match anywhere in the run.
    """
    end = run.end()
    while end > run.start() and (text[end - 1] == "." or text[end - 1].isspace()):
        end -= 1
    return (end, end + 1) if text[end : end + 1] == "." else (end,)


def _accept(m: re.Match[str]) -> JournalRef | None:
    name, start = m["name"], m.start("name")
    # "…Large Clusters. Commun. ACM 51": a full word before a stop ends a sentence, so the
    # name starts after it; abbreviations ("Phys.", "Commun.", "J.") continue the name.
    dotted = _DOTTED.finditer(name, 0, len(name) - 1) if "." in name[:-1] else ()
    for w in dotted:
        word = w[1]
        lower = word.lower()
        if not (lower in ABBREVIATIONS or len(word) <= 4 and not is_word(lower) or word.isupper()):
            start = m.start("name") + w.end()
    # A name after a bare space must open with a journal abbreviation, unless a sentence ended
    # inside the match ("…at Consensus. Gastrointest Endosc 1991, 37"): the name starts there.
    if (
        start == m.start("name")
        and start
        and m.string[start - 1].isspace()
        and m.string[start - 2 : start - 1] not in ',.;:])”’"'
    ):
        first = name.split(".", 1)[0].lower()
        if first not in ABBREVIATIONS:
            return None
    name = m.string[start : m.end("name")].strip(" ,")
    words = name.split()
    last = words[-1].rstrip(".").lower() if words else ""
    if name.endswith(".") and not (last in ABBREVIATIONS or len(last) <= 4):
        name = name[:-1]  # "Auris Nasus Larynx. 2007;": the stop ends the field
    name = _GLUED_DOT.sub(". ", name)  # "Phys.Rev.D" is "Phys. Rev. D"
    if not words or name.lower().rstrip(".") in _NOT_JOURNAL or last in _LAST_NOT_JOURNAL:
        return None  # "…Photochemistry of 1, 7-diphenyl": a title's words, not a journal's
    at = m.start("vol")
    if m.string[at - 2 : at - 1].isdigit() and m.string[at - 1 : at] == " ":
        return None  # "2009, 121 6 (38)": the "volume" is the tail of a number OCR split
    if not m.groupdict().get("year") and _YEAR_AS_VOLUME.match(m["vol"]):
        if _ISSUE_OR_MORE.match(m.string, m.end()):
            return None  # "Endosc 1997, 45 (2), AB129": the "volume" is ACS's year
    if len(words) == 1 and len(name) < 3:  # "A 12, 34" is a series letter, not a journal
        return None
    year = int(m["year"]) if m.groupdict().get("year") else None
    issue = m.groupdict().get("issue")
    return JournalRef(name, m["vol"], m["page"], year, start, m.end(), issue or None)
