"""Judge whether a title is a usable title, and say why not."""

from __future__ import annotations

import re

from curation.references.authors import looks_like_name_list

# Strings that BibTeX styles and PDF extractors leave behind instead of a reference.
_ARTEFACTS = frozenset(
    "write newline newblock bibitem bibinfo endinput relax natexlab penalty0 em et al".split()
)
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+")
# Macros of bibliography styles: their presence means markup leaked instead of a reference.
_BIB_MACRO = re.compile(
    r"\\(?:bibinfo|bibfield|bibitem|newblock|write|natexlab|bibnamefont|"
    r"bibfnamefont|citenamefont|BibitemOpen|BibitemShut|EOS)\b"
)
_BARE_YEAR = re.compile(r"^\(?\s*(?:1[5-9]|20)\d\d[a-z]?\s*\)?[.,;]?$")
_TOO_SHORT = frozenset({"ibid", "ibid.", "et al.", "et al", "idem", "op. cit.", "n.d.", "id."})
_VENUE_LEAD = re.compile(
    r"^(?:In:?\s+(?:the\s+)?(?:Proceedings|Proc\.|Advances|International|Annual|Conference|"
    r"Symposium|Workshop|Journal|IEEE|ACM|USENIX|SIAM|Springer|\d+(?:st|nd|rd|th)\b|"
    r"[A-Z]{2,}\s*['’]?\d{2,4}\b)|(?:the\s+)?Proceedings\s+of|Proc\.\s|Advances\s+in\s+Neural|"
    r"(?:IEEE|ACM)\s+(?:Trans(?:actions)?\.?|Journal|Comput|Program)|Transactions\s+on|"
    r"Journal\s+of|International\s+(?:Conference|Symposium|Workshop|Journal)\s+(?:on|of))",
)
_LETTERS = re.compile(r"[A-Za-z]+")
_ABBREVIATED_WORD = re.compile(r"[A-Za-z]+\.?")
_ALNUM = re.compile(r"[^\W_]")
_ALNUM3 = re.compile(r"\w.*\w.*\w", re.DOTALL)
_VENUE_WORDS = frozenset(
    "acm ieee usenix siam proc proceedings program programming lang languages conference conf "
    "symposium symp workshop journal j trans transactions international int annual annu "
    "comput computing commun communications letters lett review rev the of on in and for "
    "surv surveys syst systems".split()
)
# The venue words that name a venue by themselves: not the little words between them.
_VENUE_NAMING_WORDS = _VENUE_WORDS - {"the", "of", "on", "in", "and", "for"}
# Text that stands where a reference should be and names no work. Each shape must match the
# whole text (closing punctuation aside), so a real title that merely starts like one is kept.
_PLACEHOLDER_LONGEST = 80
_PLACEHOLDER = re.compile(
    # "Reference 2010", "Ref. 12", "Citation #3": a reference's number (or a year read as one).
    r"(?:ref(?:erence)?s?|citations?|cite|bib(?:item|liography\s+entry)?|entry)\.?\s*"
    r"(?:no\.?\s*|number\s+|#\s*)?\[?\d{1,4}[a-z]?\]?"
    # "[citation needed]", "reference missing", "add reference here", "insert citation".
    r"|\[?(?:citation|reference|ref\.?)\s+(?:needed|missing|required|to\s+(?:be\s+)?(?:added|come))\]?"
    r"|(?:(?:add|insert|missing|fix)\s+(?:a\s+|the\s+)?(?:ref(?:erence)?|citation|cite)s?"
    r"(?:\s+here)?)"
    # "See supplementary material.", "See the appendix", "See ref. 12", "See main text".
    r"|(?:see\s+(?:the\s+)?)?(?:supplementary|supplemental|supporting)\s+"
    r"(?:materials?|information|info|data|text|notes?|files?|appendix|section)"
    r"(?:\s+for\s+(?:details|more(?:\s+details)?|references|the\s+full\s+list))?"
    r"(?:\s+(?:at|in|online))?"
    r"|see\s+(?:the\s+)?(?:appendix|appendices|main\s+text|text|above|below|methods|SI"
    r"|(?:ref(?:erence)?s?|note|footnote|section|sec|fig(?:ure)?|table|chapter|eq)\.?\s*"
    r"\[?\d{1,4}(?:\s*[-–,]\s*\d{1,4})*\]?)",
    re.IGNORECASE,
)
# Editorial markers, capitals only ("TODO: add reference", "TBD"): "Todo lists" is a title.
_MARKER = re.compile(
    r"(?:TODO|FIXME|TBD|TBA|XXX+)\b[\s:!.\-–]*"
    r"(?:(?i:add|insert|fill\s+in|fix|find|check|cite|update|complete)\b.*)?",
    re.DOTALL,
)


def is_artefact(raw: str) -> bool:
    """Return whether raw text is a BibTeX/TeX artefact or punctuation, not a reference."""
    text = raw.strip()
    if not text:
        return False
    if "\\" not in text and "{" not in text:
        # Without TeX markup only these shapes are artefacts.
        return text.lower().strip(" .") in ("write newline", "newline", "newblock") or (
            len(text) < 60 and not _ALNUM.search(text)
        )
    if not any(c.isalnum() for c in text):
        return True
    words = [w.lower() for w in _LETTERS.findall(_TEX_COMMAND.sub(" ", text))]
    if text.lower().strip("\\ .{}") in ("write newline", "newline", "newblock"):
        return True
    if _TEX_COMMAND.search(text) and (
        sum(map(len, words)) < 12 or (len(text) < 80 and _BIB_MACRO.search(text))
    ):
        return True
    return (
        bool(words)
        and all(w in _ARTEFACTS for w in words)
        and len(words) <= 3
        and ("{" in text or "\\" in text or words[0] in ("write", "newblock", "bibitem"))
    )


def _is_venue_word(word: str) -> bool:
    return word.rstrip(".").lower() in _VENUE_WORDS or (word.endswith(".") and len(word) <= 9)


def is_venue_only(text: str) -> bool:
    """Return whether text names only a venue: "In Proceedings of ... (ICSE '23)", "ACM Program."."""
    text = text.strip()
    if _VENUE_LEAD.match(text):
        return True
    # Every word must be a venue word or an abbreviation: a first word that is neither (as in
    # most titles) settles it before the whole text is split into words.
    first = _ABBREVIATED_WORD.search(text)
    if first is None or not _is_venue_word(first[0]):
        return False
    words = _ABBREVIATED_WORD.findall(text)
    if not words or len(words) > 8:
        return False
    return all(_is_venue_word(w) for w in words) and any(
        w.rstrip(".").lower() in _VENUE_NAMING_WORDS for w in words
    )


def is_placeholder(text: str) -> bool:
    """Return whether text is a placeholder, not a reference: "Reference 2010", "TODO: add …"."""
    text = text.strip().rstrip(" .,;:")
    if not text or len(text) > _PLACEHOLDER_LONGEST:
        return False
    return _PLACEHOLDER.fullmatch(text) is not None or _MARKER.fullmatch(text) is not None


def title_problem(title: str | None) -> str | None:
    """Return why a title candidate is not usable (None when it is usable)."""
    if title is None or not title.strip():
        return "no_title"
    text = title.strip()
    if len(text) < 12:
        if text.lower() in _TOO_SHORT or not _ALNUM3.search(text.replace("_", "")):
            return "too_short"
        if _BARE_YEAR.match(text):
            return "bare_year"
    if is_artefact(text):
        return "artefact"
    if is_placeholder(text):
        return "placeholder"
    if is_venue_only(text):
        return "venue_only"
    if looks_like_name_list(text):
        return "author_fragment"
    return None
