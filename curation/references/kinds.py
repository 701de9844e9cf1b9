"""Decide the kind of work a reference names from its words: thesis, report, book, software…"""

from __future__ import annotations

import re
from collections.abc import Iterator

from curation.references.identifiers import Identifiers

# The words that decide the kind (thesis, report, book-like, serial), each at the start of a
# word: found with str.find and their boundaries checked where found (_has_word), which is far
# cheaper than one regex of the alternatives opening with "\b", tried at every position.
_THESIS_WORDS = ("thesis", "dissertation")  # whole words
_BOOK_WORDS = ("press", "publisher")  # word starts: "publishers"
_SERIAL_WORDS = ("proc", "journal", "in:", "conference", "trans")  # word starts
_TECH_REPORT = re.compile(r"tech(?:nical)?\.?\s+rep(?:ort)?\b")  # tried where "tech" starts a word
_ORDINALS = ("st", "nd", "rd", "th")  # "2nd ed", "12th edition"


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what \w matches in a str pattern


def _starts_word(text: str, at: int) -> bool:
    return at == 0 or not _is_word_char(text[at - 1])


def _word_starts(text: str, word: str) -> Iterator[int]:
    """Yield each position where `word` occurs at the start of a word of `text`."""
    at = text.find(word)
    while at >= 0:
        if _starts_word(text, at):
            yield at
        at = text.find(word, at + 1)


def _has_word(text: str, word: str, whole: bool = False) -> bool:
    """Return whether `word` starts a word of `text` (and ends it too, if `whole`)."""
    for at in _word_starts(text, word):
        end = at + len(word)
        if not whole or end == len(text) or not _is_word_char(text[end]):
            return True
    return False


def _has_any_word(text: str, words: tuple[str, ...], whole: bool = False) -> bool:
    """Return whether any of `words` starts a word of `text` (see _has_word). Most references
    hold none of them: a plain `in` rules a word out before its positions are walked."""
    for word in words:
        if word in text and _has_word(text, word, whole):
            return True
    return False


def _has_tech_report(lowered: str) -> bool:
    if "tech" not in lowered:
        return False
    return any(_TECH_REPORT.match(lowered, at) for at in _word_starts(lowered, "tech"))


def _has_edition(lowered: str) -> bool:
    """Return whether "2nd ed" (a number starting a word, an ordinal suffix, " ed") occurs."""
    at = lowered.find(" ed", 3)
    while at >= 0:
        if lowered[at - 2 : at] in _ORDINALS:
            start = at - 2
            while start > 0 and lowered[start - 1].isdecimal():  # what \d matches in a str
                start -= 1
            if start < at - 2 and _starts_word(lowered, start):
                return True
        at = lowered.find(" ed", at + 1)
    return False


def kind_of(
    lowered: str,
    *,
    identifiers: Identifiers,
    url: str | None,
    authors: bool,
    title: bool,
    venue: bool,
) -> str:
    """Return the kind of work the reference text names (article, book, thesis, software…)."""
    ids = identifiers
    if ids.github or "github.com" in lowered or "(version" in lowered:
        return "software"
    if _has_any_word(lowered, _THESIS_WORDS, whole=True):
        return "thesis"
    if _has_tech_report(lowered):
        return "report"
    if url and not ids.dois and not ids.arxiv and (not authors or not title):
        return "web"
    book = _has_any_word(lowered, _BOOK_WORDS) or _has_edition(lowered)
    if book and not _has_any_word(lowered, _SERIAL_WORDS):
        return "book"
    if ids.arxiv and not venue:
        return "preprint"
    if not title and not ids and not url:
        return "unknown"
    return "article"
