"""Repair PDF, encoding and LaTeX damage in a reference before it is parsed.

Every change is returned as a `Repair` so curators can see exactly what was altered.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from curation.references.identifiers import OLD_ARCHIVES, case_blind_start, new_style_problem
from curation.references.latex import latex_to_text
from curation.references.normalize import CONTROL_CHARS, fix_mojibake, single_spaced
from curation.references.words import (
    GLUE_WORDS,
    SUSPENDED_NEXT,
    is_word,
    join_hyphenated,
    segment,
)


@dataclass(frozen=True, slots=True)
class Repair:
    """One recorded change: what kind, the text before and the text after."""

    kind: str
    before: str
    after: str

    def to_dict(self) -> dict[str, str]:
        """Return the repair as a JSON-able dict."""
        return {"kind": self.kind, "before": self.before, "after": self.after}


# Scheme letters spelled out instead of re.IGNORECASE, which makes these scans slow.
_SCHEME = r"[Hh][Tt][Tt][Pp][Ss]?://"
_URL = re.compile(_SCHEME + r"\S+")
# The scheme's first letter, then what precedes it: the scan jumps between "h"s. It is kept in
# the match, so a space goes before it (_URL_GLUED.sub(r" \g<0>", …)).
_URL_GLUED = re.compile(r"[Hh](?<=[^\s(<\[\"'][Hh])(?=[Tt][Tt][Pp][Ss]?://)")
# A URL broken after "/", "-" or "." by a PDF line break, and the piece that follows.
_URL_BREAK = re.compile("(" + _SCHEME + r"\S*[/\-.])\s+(\S+)")
_NOT_URL_TAIL = frozenset(
    "and or the in at on for from accessed last retrieved visited available see online "
    "doi arxiv url version".split()
)
_DOI_TOKEN = re.compile(r"1(?<![\w.]1)0\.\d{4,9}/\S*")
_URL_OR_DOI = re.compile(f"{_URL.pattern}|{_DOI_TOKEN.pattern}")
# The piece after a broken DOI: starts with a digit, or is a word with a digit in it.
_DOI_TAIL = re.compile(r"\s+(\d[\w.()/-]*|[A-Za-z][\w.()/-]*\d[\w.()/-]*)")
_YEAR_TOKEN = re.compile(r"(?:19|20)\d\d[.,;)]*")
# A DOI broken inside its last word: "10.1038/natu re14539", "10.1126/science.aa a8415". The
# head's last part is lower-case letters only (complete DOIs rarely end so), and the pieces join
# into the journal-code-and-number shape of such suffixes: letters, then three or more digits
# (five or more when the piece is digits alone, so a year or a page never joins).
_DOI_WORD_HEAD = re.compile(r"(?<=[/.])[a-z]{2,12}$")
_DOI_WORD_TAIL = re.compile(r" ([a-z]{1,12}\d{3,}|\d{5,})(?=[\s.,;:)\]]|$)")
_ARXIV_SPACED = re.compile(
    r"(a(?<!\wa)(?:rxiv(?:\s+(?:preprint|e-prints?))?|bs/))\s*(:?)\s*(\d{4})\s*\.\s*(\d{4,5})(v\d+)?(?!\d)",
    re.IGNORECASE,
)
_BARE_SPACED_ID = re.compile(r"(?<![\w.])(\d{4})(?:\.\s+|\s+\.\s*)(\d{4,5})(v\d+)?(?![\d\-–])")
# What every _BARE_SPACED_ID match holds, found from its "." so the scan jumps from one stop to
# the next: four digits, the stop, spaces and four digits ("1234. 5678"), or a space, the stop,
# maybe spaces and four digits ("1234 .5678"). A miss proves _BARE_SPACED_ID cannot match.
_DOT_GAP = re.compile(r"\.(?:(?<=\d{4}\.)\s+\d{4}|(?<=\s\.)\s*\d{4})")
# Only closing punctuation and bracketed notes ("[hep-th]", "[INSPIRE]") after it: the id ends
# the reference, where physics styles put a bare arXiv id.
_AT_END = re.compile(r"\s*(?:[.,;\])]\s*|\[[\w.\- ]*\]\s*)*$")
# "arXiv .org:", "arXiv.org: ", "arXiv; 1706.01953": the scheme written as a PDF spaced it.
_ARXIV_SCHEME = re.compile(r"(a(?<!\wa)rxiv)\s*(?:\.\s*org\s*:|[;,](?=\s*\d{4}\.\d))\s*", re.I)
# "hep -th/0312052", "astro-ph /9612213", "gr-qc/ 9710068", "math/ 0407078".
_ARCHIVE_SPACED = re.compile(
    r"(?<![\w-])([a-z]+)(?:(\s*-\s*)([a-z]+))?(\s*/\s*)(\d{7}|\d{4}\.\d{4,5})(?!\d)"
)
# "doi:10. 1103/…", "10 .1088/…", "10.1103 /PhysRevLett…", "doi.10.1093/…".
_DOI_PREFIX_SPACED = re.compile(r"1(?<![\w.]1)0\s*\.\s*(\d{4,9})\s*/\s*(?=[\w(])")
_DOI_DOT_LEAD = re.compile(r"d(?<!\wd)oi\.(?=10\.\d)", re.I)
# A DOI whose next part was pushed off by a space: "…/PhysRevLett .100.228502", "…/molbev /msu300".
_DOI_SPACED_PART = re.compile(
    r"(1(?<![\w.]1)0\.\d{4,9}/[^\s\[\],;]*[\w)])\s+(\.\d[\w.()/-]*|/\w[\w.()/-]*)"
)
_HYPHEN_BREAK = re.compile(r"([^\W\d_]+)- ([^\W\d_]+)(-?)")
# The letter, "- " and letter that every _HYPHEN_BREAK match holds, found from the "-" (a scan
# that jumps between hyphens; _HYPHEN_BREAK itself retries its letter run at every letter).
_HYPHEN_BREAK_CORE = re.compile(r"-(?<=[^\W\d_]-) [^\W\d_]")
# "In" first and its word boundary checked behind it, so the scan jumps between "In"s.
_GLUED_IN = re.compile(
    r"In(?<=\bIn)(?=(?:Proceedings|Proc\.|Advances|International|Conference|Symposium|Workshop|"
    r"Journal|Annual|IEEE|ACM|USENIX|\d))"
)
# The colon or stop comes first and the lookbehind after it (same matches as "(?<=[a-z]{2}):"),
# so the scan can jump from one ":" or "." to the next instead of testing every character.
_GLUED_COLON = re.compile(r":(?<=[a-z]{2}:)(?=[A-Z][a-z])")
_GLUED_PERIOD = re.compile(r"\.(?<=[a-z]{3}\.)(?=[A-Z][A-Za-z]+(?![\w/.]))")
_SPACE_BEFORE_COLON = re.compile(r"(?<=\w) +([:,])(?= )")
# Candidate glued tokens: whole runs of 10+ ASCII letters and underscores; _is_glued_candidate
# keeps those with camelCase inside, an underscore, or 16+ letters. Ordinary long words
# ("Proceedings") do not. The runs are found in the text's bytes with every letter and "_" as "a"
# and everything else as " ", where bytes.find jumps to them (a regex class scan would try a
# match at every letter); a mask of letter case shows in one look whether camelCase exists.
_ASCII_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_RUN_MASK = bytes(ord("a") if c in _ASCII_LETTERS + b"_" else ord(" ") for c in range(256))
# Lowercase letters as "l", capitals as "U": b"lU" in the masked text is a camelCase boundary.
_CASE_MASK = bytes(
    ord("l") if 97 <= c <= 122 else ord("U") if 65 <= c <= 90 else ord(" ") for c in range(256)
)
_TEN_LETTERS, _SIXTEEN_LETTERS = b"a" * 10, b"a" * 16
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _record(kind: str, repairs: list[Repair]) -> Callable[[re.Match[str], str], str]:
    def note(m: re.Match[str], after: str) -> str:
        if after != m[0]:
            repairs.append(Repair(kind, m[0], after))
        return after

    return note


def _outside_links(text: str, fix: Callable[[str], str]) -> str:
    """Apply a text repair to everything except URLs and DOIs, which have their own rules."""
    if "://" not in text and "10." not in text:
        return fix(text)
    out, last = [], 0
    # A DOI's suffix is an opaque string: "10.1000/aaa.Bb" is not a sentence glued to a word.
    for m in _URL_OR_DOI.finditer(text):
        out.append(fix(text[last : m.start()]))
        out.append(m[0])
        last = m.end()
    out.append(fix(text[last:]))
    return "".join(out)


def _url_tail_ok(url: str, tail: str) -> bool:
    word = tail.rstrip(".,;)").lower()
    if word in _NOT_URL_TAIL or not tail[:1].isalnum():
        return False
    if url.endswith("."):
        # "https://openxla. org/xla": only a missing host part, never a new sentence.
        host_only = url.count("/") == 2
        return host_only and re.fullmatch(r"[a-z]{2,}(?:/\S*)?", tail) is not None
    return "/" in tail or "." in tail.rstrip(".") or "-" in tail or tail == tail.lower()


def _fix_url_breaks(text: str, repairs: list[Repair]) -> str:
    for _ in range(8):
        m = next((m for m in _URL_BREAK.finditer(text) if _url_tail_ok(m[1], m[2])), None)
        if m is None:
            return text
        joined = m[1] + m[2]
        repairs.append(Repair("url_space", m[0], joined))
        text = text[: m.start()] + joined + text[m.end() :]
    return text


def _fix_doi_breaks(text: str, repairs: list[Repair]) -> str:
    # Token by token (no backtracking across the text): a DOI ending in "/", "." or "-"
    # followed by a space may continue in the next token.
    out, last = [], 0
    for m in _DOI_TOKEN.finditer(text):
        head = m[0]
        if not head.endswith(("/", ".", "-")):
            if _DOI_WORD_HEAD.search(head) and (word := _DOI_WORD_TAIL.match(text, m.end())):
                repairs.append(Repair("doi_space", text[m.start() : word.end()], head + word[1]))
                out.append(text[last : m.start()] + head + word[1])
                last = word.end()
            continue
        tail = _DOI_TAIL.match(text, m.end())
        if tail is None or (_YEAR_TOKEN.fullmatch(tail[1]) and not head.endswith("/")):
            continue  # "10.1145/3434304. 2021." ends the DOI; the year is the next field
        repairs.append(Repair("doi_space", text[m.start() : tail.end()], head + tail[1]))
        out.append(text[last : m.start()] + head + tail[1])
        last = tail.end()
    return "".join(out) + text[last:] if out else text


def _fix_identifier_spacing(text: str, repairs: list[Repair]) -> str:
    """Close the spaces a PDF put inside arXiv schemes, archive names and DOI prefixes."""
    lowered = text.lower()
    if "arxiv" in lowered:
        note = _record("arxiv_space", repairs)
        text = _ARXIV_SCHEME.sub(lambda m: note(m, f"{m[1]}:"), text)
    spaced = " /" in text or "/ " in text
    if spaced or (("- " in text or " -" in text) and "/" in text):
        note = _record("arxiv_space", repairs)

        def fix_archive(m: re.Match[str]) -> str:
            archive = f"{m[1]}-{m[3]}" if m[3] else m[1]
            if archive not in OLD_ARCHIVES or (m[2] in (None, "-") and m[4] == "/"):
                return m[0]
            return note(m, f"{archive}/{m[5]}")

        text = _ARCHIVE_SPACED.sub(fix_archive, text)
    if "10" in text and "/" in text:
        note = _record("doi_space", repairs)
        if "doi." in lowered:
            text = _DOI_DOT_LEAD.sub(lambda m: note(m, "doi:"), text)
        if spaced or "10 ." in text or "10. " in text:
            text = _DOI_PREFIX_SPACED.sub(lambda m: note(m, f"10.{m[1]}/"), text)
        if spaced or " ." in text:
            text = _DOI_SPACED_PART.sub(lambda m: note(m, m[1] + m[2]), text)
    return text


def _fix_arxiv_spaces(text: str, repairs: list[Repair]) -> str:
    note = _record("arxiv_space", repairs)
    text = _fix_arxiv_scheme_spaces(text, note)
    if not _DOT_GAP.search(text):
        return text  # cheap pre-check: no "1234. 5678" or "1234 .5678" shape at all (99%)
    lowered = text.lower()
    context = "arxiv" in lowered or "corr" in lowered

    def fix_bare(m: re.Match[str]) -> str:
        yymm = int(m[1])
        if not 1 <= yymm % 100 <= 12:
            return m[0]
        # "2022. 12345" could be a year and a page: only clear yymm values, arXiv context, or
        # a valid id that ends the reference ("(2012),1110 .6448").
        at_end = _AT_END.match(text, m.end()) and new_style_problem(m[1], m[2]) is None
        if not (context or yymm > 2030 or at_end):
            return m[0]
        return note(m, f"{m[1]}.{m[2]}{m[3] or ''}")

    return _BARE_SPACED_ID.sub(fix_bare, text)


def _fix_arxiv_scheme_spaces(text: str, note: Callable[[re.Match[str], str], str]) -> str:
    """Close the spaces in "arXiv: 1706. 03762", "abs/1706 .03762" (_ARXIV_SPACED)."""
    lowered = text.lower()
    if "rxiv" not in lowered and "abs/" not in text:
        return text

    def fix(m: re.Match[str]) -> str:
        lead = "abs/" if m[1].lower() == "abs/" else m[1] + ":"
        return note(m, f"{lead}{m[3]}.{m[4]}{m[5] or ''}")

    # The case-blind scan (slow) starts one character before the first "arxiv" or "abs/", for
    # the \b, not at the start.
    start = case_blind_start(text, lowered, "arxiv", "abs/")
    if start == len(text):
        return text
    start = max(0, start - 1)
    return text[:start] + _ARXIV_SPACED.sub(fix, text[start:])


def _fix_hyphenation(text: str, repairs: list[Repair]) -> str:
    if "- " not in text or not _HYPHEN_BREAK_CORE.search(text):
        return text  # most references: no "letter- letter" break at all
    note = _record("hyphenation", repairs)

    def fix(m: re.Match[str]) -> str:
        left, right, more = m[1], m[2], m[3]
        if right.lower() in SUSPENDED_NEXT and not more:
            return m[0]
        return note(m, join_hyphenated(left, right, bool(more)) + more)

    return _HYPHEN_BREAK.sub(fix, text)


def _split_chunk(chunk: str) -> list[str] | None:
    lower = chunk.lower()
    if len(lower) < 6 or is_word(lower):
        return None
    pieces = segment(lower)
    unknown = [p for p in pieces if not is_word(p)]
    if len(pieces) < 2 or any(len(p) > 4 for p in unknown) or len(unknown) * 3 > len(pieces):
        return None
    # Single letters are only allowed as "a", or as an acronym's last capital ("T|Pranks").
    if any(
        len(p) == 1 and p != "a" and (i or not chunk[0].isupper()) for i, p in enumerate(pieces)
    ):
        return None
    out, pos = [], 0
    for p in pieces:
        out.append(chunk[pos : pos + len(p)])
        pos += len(p)
    return out


def _unglue_token(token: str) -> str:
    code_like = "_" in token
    if not code_like and not _CAMEL.search(token) and len(token) < 16:
        return token
    evidence = False
    rebuilt = []
    for part in token.split("_"):
        chunks = [c for c in _CAMEL.split(part) if c]
        split = [_split_chunk(c) for c in chunks]
        evidence = evidence or any(s and any(w.lower() in GLUE_WORDS for w in s) for s in split)
        words: list[str] = []
        for i, (chunk, pieces) in enumerate(zip(chunks, split, strict=True)):
            new = list(pieces) if pieces else [chunk]
            if pieces and len(new[0]) == 1 and new[0] != "a":
                if not (i and chunks[i - 1].isupper()):
                    new, pieces = [chunk], None
                else:
                    words[-1] += new.pop(0)  # "TPranks" splits as "T|Pranks": "P" is the acronym's
            # Code identifiers keep CamelCase unless a chunk beside the boundary was glued text.
            keep_glued = code_like and pieces is None and (i == 0 or split[i - 1] is None)
            if words and keep_glued:
                words[-1] += new.pop(0)
            words.extend(new)
        rebuilt.append(" ".join(words))
    return "_".join(rebuilt) if evidence else token


def _is_glued_candidate(run: str) -> bool:
    # A run with no capital after its first letter has no camelCase: no scan needed.
    if len(run) >= 16 or "_" in run:
        return True
    return not run[1:].islower() and _LOWER_UPPER.search(run) is not None


def _fix_glued_words(text: str, repairs: list[Repair]) -> str:
    note = _record("glued_words", repairs)
    # Searched before the substitution is set up: most texts have none of these.
    if "In" in text and _GLUED_IN.search(text):
        text = _GLUED_IN.sub(lambda m: note(m, "In "), text)
    if ":" in text and _GLUED_COLON.search(text):
        text = _GLUED_COLON.sub(lambda m: note(m, ": "), text)
    if "." in text and _GLUED_PERIOD.search(text):
        text = _GLUED_PERIOD.sub(lambda m: note(m, ". "), text)
    pieces, last = [], 0
    for start, end in _glued_candidates(text):
        token = text[start:end]
        new = _unglue_token(token)
        if new != token:
            repairs.append(Repair("glued_words", token, new))
            pieces.append(text[last:start] + new)
            last = end
    return "".join(pieces) + text[last:] if pieces else text


def _glued_candidates(text: str) -> list[tuple[int, int]]:
    """Return the (start, end) of every letter run that _is_glued_candidate keeps, in order."""
    # One byte per character, non-ASCII ones as "?" (not a letter): offsets are the text's.
    raw = text.encode("ascii", "replace")
    runs = raw.translate(_RUN_MASK)
    start = runs.find(_TEN_LETTERS)
    if start < 0:
        return []
    if _SIXTEEN_LETTERS not in runs and b"_" not in raw and b"lU" not in raw.translate(_CASE_MASK):
        return []  # every run has 10-15 letters, no underscore and no camelCase: none is glued
    spans = []
    while start >= 0:
        end = runs.find(b" ", start)
        end = len(runs) if end < 0 else end
        if _is_glued_candidate(text[start:end]):
            spans.append((start, end))
        start = runs.find(_TEN_LETTERS, end)
    return spans


def repair_reference(raw: str) -> tuple[str, list[Repair]]:
    """Return the repaired text of one reference and the repairs made, in order."""
    repairs: list[Repair] = []
    text = raw
    # Cheap pre-check: printable text holds no control characters (most references).
    if not text.isprintable() and CONTROL_CHARS.search(text):
        cleaned = CONTROL_CHARS.sub(" ", text)
        found = sorted(set(CONTROL_CHARS.findall(text)))
        repairs.append(Repair("control_characters", "".join(found), " "))
        text = cleaned
    if not text.isascii():
        fixed = fix_mojibake(text)
        if fixed != text:
            repairs.append(Repair("mojibake", text, fixed))
            text = fixed
    if "&" in text and ";" in text:
        unescaped = html.unescape(text)
        if unescaped != text:
            repairs.append(Repair("html_entity", text, unescaped))
            text = unescaped
    if "\\" in text or "{" in text:
        converted = latex_to_text(text)
        if converted != text:
            repairs.append(Repair("latex", text, converted))
            text = converted
    if "://" in text:
        if _URL_GLUED.search(text):
            repairs.append(Repair("url_glued", "", " "))
            text = _URL_GLUED.sub(r" \g<0>", text)
        text = _fix_url_breaks(text, repairs)
    text = _fix_identifier_spacing(text, repairs)
    if "10." in text:
        text = _fix_doi_breaks(text, repairs)
    text = _fix_arxiv_spaces(text, repairs)
    text = _outside_links(
        text, lambda part: _fix_glued_words(_fix_hyphenation(part, repairs), repairs)
    )
    if " :" in text or " ," in text:
        text = _SPACE_BEFORE_COLON.sub(r"\1", text)
    return single_spaced(text), repairs
