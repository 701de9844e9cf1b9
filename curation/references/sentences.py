"""Split reference text into sentence-like fields without breaking at initials or abbreviations."""

from __future__ import annotations

import re

ABBREVIATIONS = frozenset(
    """proc vol vols no nos pp p conf int j trans comput commun phys rev lett math sci res ann
    inf syst intell mach adv nat jan feb mar apr jun jul aug sep sept
    oct nov dec al ed eds edn univ dept tech rep symp annu theor nucl astron astrophys gen rel
    grav fortsch mod surv lang endow libr digit st inc ltd co corp vs cf fig eq dr prof
    jr sr class natl acad soc am assoc mag bull lect exp appl stat biol chem med eng electr geophys
    opt quant struct softw netw secur oper anal recognit vis proj mater biochem mol
    neurosci psychol soc econ rep spec sel top ser suppl pt ch sec repr""".split()
)
_BOUNDARY = re.compile(r"[.?!][\"”’']?\s+")
_INITIAL = re.compile(r"[A-Z]\.")
_WORD_PUNCTUATION = frozenset("_.'’-")  # with letters and digits, what a "word" here is made of


def _last_word(text: str, start: int, stop: int) -> str:
    """Return the run of word characters that ends text[start:stop] (the word before a stop).

    A loop back from the end: a regex search would try a match at every position before it.
    """
    if stop > start and text[stop - 1] == "\n":
        stop -= 1  # as the regex's "$" did: it matches before a final newline too
    at = stop
    while at > start and (text[at - 1].isalnum() or text[at - 1] in _WORD_PUNCTUATION):
        at -= 1
    return text[at:stop]


def split_sentences(text: str, initials: bool = True) -> list[str]:
    """Return the text's sentence-like segments, stripped, without their final full stop.

    With `initials` (author lists), "J." never ends a sentence; without it (titles and
    venues, where "On random graphs I. Publicationes ..." happens) only a run of initials
    such as "J. S." holds together.
    """
    segments: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if text[m.start()] == ".":
            # Only a short window before the stop, as the regex this replaced searched.
            word = _last_word(text, max(start, m.start() - 40), m.start())
            if len(word) == 1 and word.isupper() and (initials or _INITIAL.match(text, m.end())):
                continue
            if word.lower() in ABBREVIATIONS:
                continue
            if "." in word or text[m.end() : m.end() + 1].islower():
                continue
        segment = text[start : m.start() + 1].strip()
        if segment:
            segments.append(segment)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        segments.append(tail)
    return [s[:-1].strip() if s.endswith(".") else s for s in segments if s.strip(" .")]
