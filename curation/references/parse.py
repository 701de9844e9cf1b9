"""Parse one reference string into fields, identifiers, repairs and a title judgement."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import Any

from curation.references.authors import (
    DIGIT,
    ORG_WORDS,
    Author,
    looks_like_name_list,
    name_list,
    parse_author_block,
    take_author_prefix,
)
from curation.references.identifiers import URL_RE, Identifiers, extract_identifiers
from curation.references.journals import JournalRef, find_journal_ref
from curation.references.kinds import kind_of
from curation.references.layouts import FullStopFields, full_stop_fields
from curation.references.locators import IN_CONTAINER, Locator, read_locator
from curation.references.normalize import normalize_reference_text, single_spaced
from curation.references.quality import is_artefact, is_placeholder, is_venue_only, title_problem
from curation.references.repair import Repair, repair_reference
from curation.references.sentences import split_sentences

MAX_PARSE_CHARS = 4000  # No real reference is longer; beyond this we parse only the head.
_MAX_YEAR = datetime.date.today().year + 1

# (cheap substring guard, pattern): identifiers and access notes removed before field parsing.
# Patterns here and elsewhere in the parser open with a literal and check the word boundary (or
# the character) before it afterwards: "d(?<!\wd)oi" is "\bdoi", "1(?<![\w/]1)0\." is
# "(?<![\w/])10\.". The scan for a pattern that opens with a literal jumps between occurrences of
# it; one that opens with \b or a look-behind is tried at every position (2-8x slower).
_STRIP_PATTERNS = [
    (guard, re.compile(p, re.IGNORECASE))
    for guard, p in (
        ("online]", r"\[online\]\.?"),
        ("available", r"a(?<!\wa)vailable(?:\s+at|\s+online)?\s*:?\s*(?=https?://|www\.)"),
        ("url", r"u(?<!\wu)rl\s*:?\s*(?=https?://|www\.)"),
        ("retrieved from", r"retrieved\s+from\s*(?=https?://)"),
        ("://", rf"d(?<!\wd)oi\s*:?\s*(?:{URL_RE.pattern})|{URL_RE.pattern}"),
        ("www.", URL_RE.pattern),
        ("doi", r"d(?<!\wd)oi\s*:\s*(?:10\.\S+)?"),
        ("10.", r"1(?<![\w/]1)0\.\d{4,9}/\S+"),
        (
            "rxiv",
            r"a(?<!\wa)rxiv(?:\s+(?:preprint|e-prints?),?\s*a(?<!\wa)rxiv\s*:\s*\S+(?:\s*\[[\w.\-]+\])?"
            r"|\s*:\s*\S+(?:\s*\[[\w.\-]+\])?|\s+(?:preprint|e-prints?)\b)",
        ),
        ("orr", r"c(?<!\wc)orr\b,?\s*(?:abs/\S+)?"),
        ("\0old", r"\[?(?<![\w/])(?:[a-z]+-)?[a-z]+(?:\.[a-z]{2})?/\d{7}(?:v\d+)?\]?"),
        ("\0new", r"\d(?<![\w.]\d)\d{3}\.\d{4,5}(?:v\d+)?\s*\[[\w.\-]+\]"),
        ("sbn", r"i(?<!\wi)sbn[-:\s]*[\dx][\dx\-\s]{8,}[\dx]"),
        ("ccess", r"\(?\b(?:last\s+)?accessed(?:\s+on)?\s*:?[^.)]*\)?"),
        ("etrieved", r"\(?\bretrieved(?:\s+on)?\s*:?[^.)]*\)?"),
        ("isited", r"\(?\bvisited(?:\s+on)?\s*:?[^.)]*\)?"),
        ("ository", r"g(?<!\wg)it(?:hub|lab)\s+repository\b"),
        ("equest", r"p(?<!\wp)ull\s+request\s+#\d+"),
    )
]
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;.]?\s*\)|\[\s*\]")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:])")
_PUNCT_RUN = re.compile(r"([,;:.])(?:\s+[,;:.])+")
_DOTS = re.compile(r"\.{2,}")
_VOLUME_BEFORE = re.compile(r"(?:vol\.?|volume|no\.)\s*$", re.I)
_SHORT_YEAR = re.compile(r"\b[A-Z][A-Za-z-]+\s*['’](\d{2})\b")
_IN_PREFIX = re.compile(r"^[Ii]n:?\s+")
# "Title, vol. 5 (…)", "Title, Phys. Rev. …", "Title, in: Proceedings…", "Title, 2nd Edition":
# a comma then a field that a title never continues with.
_COMMA_TAIL = re.compile(
    r",(?<!\d,)\s*(?=(?:[Vv]ol(?:\.|ume)?\s*\d+(?!\d|\s*:)|[Nn]o\.\s*\d|pp?\.\s*\d|[Ii]n:|In\s|Proc\.|Proceedings\b"
    r"|Journal\b|Trans\.|Th[eè]se|Ph\.?\s?D\b|Master|Doctoral|Dissertation|\d"
    r"|[A-Z][a-z]{0,8}\.\s*[A-Z][a-z]{0,8}\.|[A-Z][\w-]+\s+(?:University\s+)?Press\b"
    r"|(?:Springer|Wiley|Elsevier|Academic Press|Cambridge|Oxford)\b))"
)
# "[13 ]", "(126)", "12. ", "26-", and as CSL renders numbered lists: "230.Fujita", "160 C. Cotton".
_NUMBER_LABEL = re.compile(
    r"^(?:\[\s*\d{1,3}\s*\]|\(\d{1,3}\)|\d{1,3}(?:[.)]\s+|-|\.(?=[A-Z][a-z])|\s+(?=[A-Z]\.))(?=[A-Z]))\s*"
)
_OPEN_SPACE = re.compile(r"\(\s+")
_CLOSE_SPACE = re.compile(r"\s+\)")
_TITLE_OR_VENUE = re.compile(r"\b[a-z]{4,}|\d|[^\W\d_A-Za-z\u00c0-\u024f]")
_NAME_WORD = re.compile(r"\S*[^\W\d_]{2}")
_INITIAL_DOT = re.compile(r"\b[A-Z]\.")
_LEADING_YEAR = re.compile(r"^\(?((?:1[6-9]|20)\d\d)[a-z]?\)?(?:[.,:]\s*|\s+(?=[A-Z\"“]))")
_HAS_WORDS = re.compile(r"[^\W\d_]{3,}")
# The check on the character before the year comes after its digits: a pattern that opens with
# "1" or "2" lets the scan jump between those digits instead of trying every position.
_YEAR = re.compile(r"((?:1[6-9]|20)\d\d)(?<![\d./\-–]\d{4})[a-z]?(?![\d/]|\s*[-–]\s*\d)")
_PAREN_YEAR = re.compile(r"\(\s*(?:[A-Za-z.]+\s+)?((?:1[6-9]|20)\d\d)[a-z]?\s*[,)]")
_ACM_YEAR = re.compile(r"^(.{3,}?)\.\s+((?:1[6-9]|20)\d\d)[a-z]?\.\s+")
_APA_YEAR = re.compile(r"^(.{3,}?)\s*\(((?:1[6-9]|20)\d\d)[a-z]?(?:,[^)]*)?\)\s*[.,:]?\s*")
# What _ACM_YEAR needs after its names, in a scan that jumps from one stop to the next.
_ACM_YEAR_HINT = re.compile(r"\.\s+(?:1[6-9]|20)\d\d[a-z]?\.\s")
_QUOTED = re.compile(
    r"[\"“”](?P<t>[^\"“”]{4,}?)[,.]?[\"”“]"
    # Single quotes (Harvard, Korean styles) and guillemets: only at word boundaries, so the
    # apostrophe of "Google's" never opens a title.
    r"|(?:^|(?<=[\s,(]))['‘«]\s*(?P<s>[^'‘’«»]{8,}?)\s*[,.]?\s*['’»](?=[\s,.;:]|$)"
)
# Every _QUOTED match opens with one of these; a match at the start, with its first character.
_QUOTE_CHAR = re.compile("[\"“”'‘«]")
_QUOTE_OPENERS = frozenset("\"“”'‘«")
# The last "name" of "Y. He. DeepSpeed": initials, a capitalised two-letter word with its stop
# (the surname), then one word (a title's lead, followed by its colon).
_SURNAME_AS_INITIAL = re.compile(r"((?:[A-Z]\.\s*(?:-\s*)?)+[A-Z][a-z])\.\s+[A-Z][\w-]*")
_LABEL_PREFIX = re.compile(r"^[a-z][a-z0-9]{3,}-(?:\d+|[0-9a-f]{7,40})\s*:\s*")
_ISSUE_PREFIX = re.compile(
    r"^[\w .\-/]{0,60}?\b(?:issue|pull request|PR|commit)\s*(?:#\s*\d+|[0-9a-f]{7,40})?\s*:\s*",
    re.I,
)
_JOURNAL_CITATION = re.compile(
    r"^(?:[A-Z][\w.&'’\-]*\.?\s+){1,6}(?:[A-Z]\s+)?\d+\s*[,:]\s*[A-Z]?\d+\b"
)
_ABBREVIATED_JOURNAL = re.compile(
    r"^(?:[A-Z][a-z]{0,9}\.\s+){1,6}(?:[A-Z]\s+)?\d+\s*[,:]\s*[A-Z]?\d+\b"
)
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_EDITION = re.compile(r",\s*\d+(?:st|nd|rd|th)\s+(?:ed|edn|edition)\b")
# Every tail ends in ")" or a digit, holds "(" (", Vol. 3 (…"), or is an edition (_EDITION).
_TITLE_TAIL = re.compile(
    "(?:"
    + "|".join(
        f"(?:{p})"
        for p in (
            rf",\s*(?:{_MONTH}\s+)?(?:1[6-9]|20)\d\d\s*$",
            rf",?\s*\((?:{_MONTH}\s+)?(?:1[6-9]|20)\d\d\)\s*$",
            r"\s*\((?:Doctoral dissertation|Master'?s thesis|PhD thesis)\)\s*$",
            r"\s*\((?:[^()]*['’]\d{2}|[A-Z][A-Za-z]+\s*\d{2,4})\)\s*$",
            r"\s*\(Version\s+[\d.]+\)\s*$",
            r"\s*\(\d+(?:st|nd|rd|th)\s+(?:ed|edn|edition)\.?\)\s*$",
            r"\s*\(\d+(?:st|nd|rd|th)\s+Edition\)\s*$",
            rf"{_EDITION.pattern}.*$",
            r",\s*(?:Vol\.|Volume)\s*\d+\s*(?:\(.*)?$",
            r"\s*\([^()]*(?:Press|Publishers?|Springer|Wiley|Addison|Elsevier|University)[^()]*\)\s*$",
        )
    )
    + ")"
)
_YEAR_ONLY = re.compile(r"\(?(1[89]|20)\d\d[a-z]?\)?")
_VENUE_HINT = re.compile(
    r"^(?:In\b|Proc|Journal|Trans|Press\b|[A-Z][a-z]+ (?:University )?Press|MIT Press|Springer)"
)


@dataclass(slots=True)
class ParsedReference:
    """The structured reading of one reference string."""

    raw: str
    text: str
    kind: str
    authors: list[Author] = field(default_factory=list)
    title: str | None = None
    title_usable: bool = False
    title_problem: str | None = None
    year: int | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    url: str | None = None
    journal: str | None = None  # the journal name of a journal reference, as printed
    container: str | None = None  # the journal, book or proceedings holding the work
    first_page: str | None = None
    identifiers: Identifiers = field(default_factory=Identifiers)
    repairs: list[Repair] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def normalized(self) -> str:
        """Return the normalised raw text that identifies the observation (SPEC §6)."""
        return normalize_reference_text(self.raw[:MAX_PARSE_CHARS])

    @property
    def first_author_surname(self) -> str | None:
        """Return the first author's surname, if any."""
        return self.authors[0].surname if self.authors else None

    @property
    def parse_uncertain(self) -> bool:
        """Return whether SPEC §2 step 1 applies: no usable title, no identifier, no URL."""
        return not self.title_usable and not self.identifiers and self.url is None

    def to_dict(self) -> dict[str, Any]:
        """Return the parse as a JSON-able dict."""
        ids = self.identifiers
        return {
            "raw": self.raw,
            "text": self.text,
            "normalized": self.normalized,
            "kind": self.kind,
            "authors": [a.to_dict() for a in self.authors],
            "first_author_surname": self.first_author_surname,
            "title": self.title,
            "title_usable": self.title_usable,
            "title_problem": self.title_problem,
            "parse_uncertain": self.parse_uncertain,
            "year": self.year,
            "venue": self.venue,
            "volume": self.volume,
            "issue": self.issue,
            "pages": self.pages,
            "journal": self.journal,
            "container": self.container,
            "first_page": self.first_page,
            "url": self.url,
            "identifiers": {
                "arxiv": [str(a) for a in ids.arxiv],
                "doi": [d.value for d in ids.dois],
                "github": [
                    {"owner": g.owner, "repo": g.repo, "kind": g.kind, "ref": g.ref}
                    for g in ids.github
                ],
                "urls": list(ids.urls),
            },
            "malformed_identifiers": [
                {"scheme": m.scheme, "raw": m.raw, "reason": m.reason} for m in ids.malformed
            ],
            "repairs": [r.to_dict() for r in self.repairs],
            "warnings": list(self.warnings),
        }


def _strip_identifiers(text: str, ids: Identifiers) -> str:
    # Guards keep this cheap: most references hold none of these, and each scan costs.
    lowered = text.lower()
    if ids.arxiv:
        schemes = {a.scheme for a in ids.arxiv}
        lowered += "".join(f"\0{s}" for s in schemes)
    for guard, pattern in _STRIP_PATTERNS:
        if guard in lowered:
            text = pattern.sub(" ", text)
    if "(" in text or "[" in text:
        text = _EMPTY_BRACKETS.sub(" ", text)
    if " ," in text or " ." in text or " ;" in text or " :" in text:
        text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
        # Removal leaves runs such as ", ." or ". ,"; keep "E.," (an initial then a comma).
        text = _PUNCT_RUN.sub(r"\1", text)
    if ".." in text:
        text = _DOTS.sub(".", text)
    return single_spaced(text).strip(" ,;:")


def find_year(text: str) -> int | None:
    """Return the publication year: in parentheses first, else the first plausible one."""
    for m in _PAREN_YEAR.finditer(text):
        if int(m[1]) <= _MAX_YEAR:
            return int(m[1])
    for m in _YEAR.finditer(text):
        if int(m[1]) <= _MAX_YEAR and not _VOLUME_BEFORE.search(
            text, max(0, m.start() - 8), m.start()
        ):
            return int(m[1])
    return None


def _implied_year(body: str, ids: Identifiers) -> int | None:
    """Return a year implied by "SOSP '23" or by a new-style arXiv id when none is printed."""
    m = _SHORT_YEAR.search(body) if "'" in body or "’" in body else None
    if m:
        yy = int(m[1])
        return 2000 + yy if 2000 + yy <= _MAX_YEAR else 1900 + yy
    new_style = [a for a in ids.arxiv if a.scheme == "new"]
    return 2000 + int(new_style[0].id[:2]) if new_style else None


def _may_hold_tail(window: str) -> bool:
    """Return False when no _TITLE_TAIL alternative can match: most titles end in a word."""
    last = window.rstrip()[-1:]
    return last == ")" or last.isdigit() or "(" in window or _EDITION.search(window) is not None


def _clean_title(title: str) -> str:
    title = title.strip().strip("\"“”'‘’ ")
    for _ in range(3):  # tails stack: "..., Vol. 1 (Cambridge University Press, 1995)"
        # Tails are anchored at the end; scanning only the last 100 characters is much faster.
        cut = max(0, len(title) - 100)
        if not _may_hold_tail(title[cut:]):
            break
        tail = _TITLE_TAIL.sub("", title[cut:])
        if len(tail) == len(title) - cut:
            break
        title = title[:cut] + tail
    if " ," in title or " ." in title or " ;" in title or " :" in title:
        title = _SPACE_BEFORE_PUNCT.sub(r"\1", title)
    return title.strip(' .,;:"“”').strip()


def _take_authors(body: str) -> tuple[list[Author], str, bool]:
    """Return authors, the rest of the text, and whether a year anchor was consumed."""
    # Cheap pre-checks first: most bodies hold neither year anchor nor any quote.
    anchors = (
        (_ACM_YEAR, _ACM_YEAR_HINT.search(body) is not None),
        (_APA_YEAR, "(1" in body or "(2" in body),
    )
    for anchor, possible in anchors:
        m = anchor.match(body) if possible else None
        if m:
            authors = parse_author_block(m[1])
            if authors:
                return authors, body[m.end() :], True
    quoted = _QUOTED.search(body) if _QUOTE_CHAR.search(body) else None
    if quoted and quoted.start() > 0:
        authors = parse_author_block(body[: quoted.start()].rstrip(" ,:"))
        if authors:
            return authors, body[quoted.start() :], False
    taken = take_author_prefix(body)
    if taken:
        authors, rest = _title_lead_in_names(body, *taken)
        return authors, rest, False
    return [], body, False


def _title_lead_in_names(body: str, authors: list[Author], rest: str) -> tuple[list[Author], str]:
    """Return the authors and rest with a title's lead ("DeepSpeed:") given back to the title.

    In "…, O. Ruwase, Y. He. DeepSpeed: System optimizations…" the surname "He." reads as a
    two-letter initial (as "Yu." is), so "DeepSpeed" passes for the last surname, and the
    title loses the words before its colon. A name list never ends in a colon right after an
    initial-and-word like that: the initial was the surname, the word starts the title.
    """
    if not authors or not rest or ":" not in body:
        return authors, rest
    last = authors[-1].name
    m = _SURNAME_AS_INITIAL.fullmatch(last)
    at = body.find(last)
    if m is None or at < 0 or body[at + len(last) : at + len(last) + 1] != ":":
        return authors, rest
    name = m[1]
    title_on = body[at + len(name) :].lstrip(" .")
    return [*authors[:-1], Author(name, name.rsplit(None, 1)[-1])], title_on


def _comma_authors(body: str) -> tuple[list[Author], str] | None:
    """Return "Feng Luo and Stephan Tillmann, Angle structures…": names, then a comma field."""
    head = body[:200]
    if ", " not in head:
        return None
    fields = head.split(", ")
    for n in range(min(len(fields) - 1, 8), 0, -1):
        block = ", ".join(fields[:n])
        if "." in block.replace(". ", "").rstrip(".") and not _INITIAL_DOT.search(block):
            continue  # a stop that is not an initial's ends a sentence: not a name list
        rest = body[len(block) :].lstrip(" ,")
        # The names must be followed by something that is not more names (a fragment).
        if not _TITLE_OR_VENUE.search(rest) or looks_like_name_list(rest.rstrip(" .")):
            return None
        if _NAME_WORD.match(fields[0]) and (authors := name_list(block)):
            return authors, rest
    return None


def _title_and_venue(rest: str, after_names: bool) -> tuple[str | None, str | None]:
    if after_names and rest[:1] in "Ii" and IN_CONTAINER.match(rest):
        return None, rest  # "…, in: B. Editor (Ed.), Handbook…": title-less styles name the book
    quoted = _QUOTED.match(rest) if rest[:1] in _QUOTE_OPENERS else None
    if quoted:
        return quoted["t"] or quoted["s"], rest[quoted.end() :].lstrip(" ,.") or None
    if _ABBREVIATED_JOURNAL.match(rest):
        return None, rest
    segs = split_sentences(rest, initials=False)
    if not segs:
        return None, None
    if _JOURNAL_CITATION.match(segs[0]):
        return None, rest
    title = _cut_comma_tail(segs[0])
    i = 1
    # "Why Does the Cloud Stop Computing? Lessons from ..." is one title.
    while (
        title.endswith("?")
        and i < len(segs)
        and not DIGIT.search(segs[i])
        and not _VENUE_HINT.match(segs[i])
    ):
        title = f"{title} {segs[i]}"
        i += 1
    venue = segs[i] if i < len(segs) else None
    return title, venue


def _cut_comma_tail(title: str) -> str:
    """Return the title without the venue, volume or publisher that follow it after a comma."""
    if "," not in title:
        return title
    for m in _COMMA_TAIL.finditer(title):
        head = title[: m.start()]
        if len(head) >= 8 and head.count("(") == head.count(")"):
            return head  # a comma inside "(Princeton University Press, 1992)" is no boundary
    return title


def _org_author(segs: list[str]) -> Author | None:
    """Return an organisation author for "NVIDIA. Megatron-LM. 2024." shapes."""
    if len(segs) < 2 or ":" in segs[0] or is_venue_only(segs[0]):
        return None
    words = segs[0].split()
    if len(words) > 3 and not (len(words) <= 6 and words[-1].lower() in ORG_WORDS):
        return None
    if _VENUE_HINT.match(segs[1]) or _YEAR_ONLY.fullmatch(segs[1]):
        return None
    return Author(segs[0], segs[0])


def parse_reference(raw: str) -> ParsedReference:
    """Return the structured parse of one raw reference string; never raises on text.

    The stages, each its own function: repair the text and find its identifiers; take the
    identifiers and list labels off (`field_body`); then read either a full-stop-separated
    structured layout or free text (`authors_and_rest`, `title_venue_and_journal`,
    `judge_title`, then year, venue and locator).
    """
    head, warnings = _head(raw)
    text, repairs = repair_reference(head)
    ids = extract_identifiers(text)
    ref = ParsedReference(
        raw=raw, text=text, kind="unknown", identifiers=ids, repairs=repairs, warnings=warnings
    )
    ref.url = ids.urls[0] if ids.urls else None
    if is_artefact(head):
        ref.title_problem = "artefact"
        return ref
    body = field_body(text, ids)
    if len(body) <= 80 and is_placeholder(body):
        # "Reference 2010", "See supplementary material.": no work is named, so no field is
        # read from it (a leading word would otherwise pass for an organisation author).
        ref.title_problem = "placeholder"
        return _finish(ref, text)
    body = _without_issue_prefix(body)
    if body.rstrip(". ")[-1:].isdigit() and (layout := full_stop_fields(body)) is not None:
        return _finish(_full_stop_reading(ref, layout), text)
    _free_text_reading(ref, body)
    return _finish(ref, text)


def _head(raw: str) -> tuple[str, list[str]]:
    """Return the part of the string that is parsed, with a warning when it is cut."""
    if len(raw) <= MAX_PARSE_CHARS:
        return raw, []
    warning = f"reference is {len(raw):,} characters; parsed the first {MAX_PARSE_CHARS:,}"
    return raw[:MAX_PARSE_CHARS], [warning]


def field_body(text: str, ids: Identifiers) -> str:
    """Return the text the fields are read from: no identifiers, access notes or list label.

    "[13 ]B. Buyens", "26-Vellin J-F", "12. Smith J", "smith-2020: …" lose their labels;
    PDF spacing damage around brackets is undone.
    """
    body = _strip_identifiers(text, ids)
    if body[:1].islower():  # cheap pre-check: the label starts with a lowercase letter
        body = _LABEL_PREFIX.sub("", body)
    if body[:1] in "[(0123456789":
        body = _NUMBER_LABEL.sub("", body)
    if "( " in body or " )" in body or ",," in body:
        body = _respace(body)
    return body


def _without_issue_prefix(body: str) -> str:
    """Return the body without a leading "repo issue #12:" or "commit abc1234:" label."""
    if ":" not in body:
        return body
    lowered_head = body[:80].lower()
    if (
        "issue" in lowered_head
        or "pull" in lowered_head
        or "pr" in lowered_head
        or "commit" in lowered_head
    ):
        return _ISSUE_PREFIX.sub("", body)
    return body


def _free_text_reading(ref: ParsedReference, body: str) -> None:
    """Read authors, title, year, venue and locator from a free-text body into `ref`.

    A piece of an author list, or junk without names, keeps its title judgement and nothing
    else: no field is read from it.
    """
    authors, rest = authors_and_rest(body)
    title, venue, journal_ref = title_venue_and_journal(rest, named=bool(authors))
    ref.title, ref.title_problem = judge_title(
        title,
        named=bool(authors),
        venue=venue,
        rest=rest,
        identified=bool(ref.identifiers) or ref.url is not None,
    )
    ref.title_usable = ref.title_problem is None
    whole_is_junk = ref.title_problem not in (None, "no_title") and not authors
    if ref.title_problem == "author_fragment" or whole_is_junk:
        return
    ref.authors = authors
    ref.year = find_year(body) or _implied_year(body, ref.identifiers)
    ref.venue = venue_name(venue)
    _place(ref, read_locator(_from_venue(rest, venue)), journal_ref)


def authors_and_rest(body: str) -> tuple[list[Author], str]:
    """Return the authors that open the body and the text after them (no leading year).

    Tried in order: a year anchor or a quoted title after the names, a name prefix, the first
    sentence as a name list, an organisation ("NVIDIA. Megatron-LM."), names before a comma.
    """
    authors, rest, _ = _take_authors(body)
    if not authors:
        segs = split_sentences(body)
        if segs and (named := name_list(segs[0])):
            authors = named
            rest = ". ".join(segs[1:])
        elif (org := _org_author(segs)) is not None:
            authors, rest = [org], ". ".join(segs[1:])
        elif comma := _comma_authors(body):
            authors, rest = comma
    if authors and rest[:1] in "(12":
        rest = _LEADING_YEAR.sub("", rest)  # "Cella G, … Takamori A 2005 Monolithic …"
    return authors, rest


def title_venue_and_journal(
    rest: str, *, named: bool
) -> tuple[str | None, str | None, JournalRef | None]:
    """Return the would-be title, the venue and the journal reference in the text after the
    names; the title never runs into a journal reference ("Phys. Rev. D 65, 094516")."""
    title, venue = _title_and_venue(rest, after_names=named)
    journal_ref = find_journal_ref(rest)
    if journal_ref is not None:
        title, venue = _around_journal_ref(rest, title, venue, journal_ref)
    return title, venue, journal_ref


def judge_title(
    title: str | None, *, named: bool, venue: str | None, rest: str, identified: bool
) -> tuple[str | None, str | None]:
    """Return the title as kept (cleaned, or None) and its problem (None when usable).

    `named`: authors were read; `rest`: the text after them; `identified`: the reference has
    an identifier or a URL. A title with a problem other than "no_title" is dropped.
    """
    problem = title_problem(title)
    if problem == "author_fragment" and named and venue and _nameless(title):
        # "Day, R. M.; Suzuki, Y. J. Cell Proliferation, Reactive Oxygen and Cellular
        # Glutathione. Dose Response…": after the names and before a venue, where titles sit.
        problem = None
    kept = None
    if problem is None and title:
        kept = _clean_title(title) or None
        if kept != title:
            problem = title_problem(kept)
    if problem and problem != "no_title":
        return None, problem
    if problem == "no_title" and named and not rest.strip(" .,;") and not identified:
        return kept, "author_fragment"  # only names: a piece of an author list
    return kept, problem


def venue_name(venue: str | None) -> str | None:
    """Return the venue without "In:" and edge punctuation; a bare year names no venue."""
    if not venue:
        return None
    name = _IN_PREFIX.sub("", venue).strip(" .,") or None
    if name and _YEAR_ONLY.fullmatch(name):
        return None  # "Title. 2023." names no venue: the year is the year
    return name


def _nameless(title: str | None) -> bool:
    """Return whether a would-be name list has no initial and four words or more (title-like)."""
    return title is not None and len(title.split()) >= 4 and not _INITIAL_DOT.search(title)


def _full_stop_reading(ref: ParsedReference, layout: FullStopFields) -> ParsedReference:
    """Return the reference with the fields of its full-stop-separated structured layout."""
    ref.authors, ref.year = layout.authors, layout.year
    ref.title = _clean_title(layout.title) or None
    ref.title_problem = title_problem(ref.title)
    ref.title_usable = ref.title_problem is None
    if not ref.title_usable:
        ref.title = None
    ref.venue = ref.container = layout.container
    ref.volume, ref.issue, ref.pages = layout.volume, layout.issue, layout.pages
    ref.first_page = read_locator(f"pp. {layout.pages}").first_page
    return ref


def _from_venue(rest: str, venue: str | None) -> str:
    """Return the text from the venue to the end: the locator's fields follow the venue's name."""
    at = rest.find(venue) if venue else -1
    return rest[at:] if at >= 0 else venue or rest


def _place(ref: ParsedReference, locator: Locator, journal_ref: JournalRef | None) -> None:
    """Set container, volume, issue and pages: a journal reference's reading wins."""
    ref.volume, ref.issue, ref.pages = locator.volume, locator.issue, locator.pages
    ref.container, ref.first_page = locator.container, locator.first_page
    if journal_ref is not None:
        ref.journal = ref.container = journal_ref.journal
        ref.volume, ref.first_page = journal_ref.volume, journal_ref.first_page
        ref.issue = journal_ref.issue or ref.issue
        ref.year = ref.year or journal_ref.year


def _respace(body: str) -> str:
    """Return the body with PDF spacing damage around brackets undone: "( 2012 )" is "(2012)"."""
    return _OPEN_SPACE.sub("(", _CLOSE_SPACE.sub(")", body))


def _around_journal_ref(
    rest: str, title: str | None, venue: str | None, jr: JournalRef
) -> tuple[str | None, str | None]:
    """Return title and venue once the journal reference is known: the title never runs into it."""
    before = rest[: jr.start].rstrip(" ,.;:")
    venue = rest[jr.start :].strip(" .,;") or venue
    if not _HAS_WORDS.search(before):
        return None, venue  # "Phys. Rev. D 65, 094516 (2002)": a journal reference, no title
    if title is None:
        return title, venue
    at = rest.find(title)
    if at >= 0 and at + len(title) > jr.start:
        cut = rest[at : jr.start].rstrip(" ,.;:")
        return cut or None, venue
    return title, venue


def _finish(ref: ParsedReference, text: str) -> ParsedReference:
    ref.kind = kind_of(
        text.lower(),
        identifiers=ref.identifiers,
        url=ref.url,
        authors=bool(ref.authors),
        title=ref.title is not None,
        venue=bool(ref.venue),
    )
    return ref
