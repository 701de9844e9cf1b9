"""Normalise reference text for identity and titles for matching."""

from __future__ import annotations

import re
import unicodedata

import ftfy

from curation.references.words import SUSPENDED_NEXT, join_hyphenated

# Quotes and dashes that vary between PDF extractors but never change meaning.
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00ad": None,
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\ufeff": None,
        "\x00": None,
    }
)
# Mojibake is UTF-8 read as Latin-1/cp1252; its fingerprints are these lead characters.
_MOJIBAKE = re.compile(
    "[\u00c2\u00c3\u00c5\u00c4\u00e2\u00ce\u00cf\u00d0\u00d1][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)
_SPACE = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)\]])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[])\s+")
_REPEATED_PUNCT = re.compile(r"([,.;:!?-])\1+")
_HYPHEN_BREAK = re.compile(r"([^\W\d_]+)- +([^\W\d_]+)(-?)")
_NON_WORD = re.compile(r"[\W_]+")
# NUL (refused by PostgreSQL text columns) and the other C0 controls except tab/newlines.
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def fix_mojibake(text: str) -> str:
    """Return text with UTF-8-as-Latin-1 damage undone (only calls ftfy when it is likely)."""
    if text.isascii() or not _MOJIBAKE.search(text):
        return text
    return ftfy.fix_text(text, normalization="NFC")


def _unicode_fold(text: str) -> str:
    text = fix_mojibake(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return CONTROL_CHARS.sub(" ", text.translate(_FOLD))


def _normalize_once(raw: str) -> str:
    text = _unicode_fold(raw).casefold()
    if not text.isascii():
        # casefold can produce compatibility characters (e.g. "ß" -> "ss" is fine, but
        # some ligatures need NFKC again).
        text = unicodedata.normalize("NFKC", text)
    text = _SPACE.sub(" ", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _SPACE_AFTER_OPEN.sub(r"\1", text)
    text = _REPEATED_PUNCT.sub(r"\1", text)
    return text.strip().rstrip(". ").strip()


def normalize_reference_text(raw: str) -> str:
    """Return the stable normalised form of a raw reference, used for observation identity.

    Steps: mojibake fix, NFKC, quote/dash folding, removal of NUL/control characters,
    casefold, whitespace collapsed, no space before closing punctuation or after opening
    brackets, repeated punctuation collapsed, outer whitespace and trailing full stops
    removed. Two references that differ only in these respects are the same observation.
    """
    text = _normalize_once(raw)
    if text.isascii():
        return text  # on ASCII text one pass is already a fixed point
    # NFKC and casefolding can make a new mojibake fingerprint ("¨Â\x86" -> "̈â†"), which the
    # next pass would repair: repeat to the fixed point so identity never shifts on re-import.
    for _ in range(4):
        again = _normalize_once(text)
        if again == text:
            break
        text = again
    return text


def _strip_accents(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def normalize_title(title: str) -> str:
    """Return a title reduced for matching: folded, no accents or punctuation, hyphenation joined.

    "Megatron- LM : Training ..." and "megatron-lm: training ..." both become
    "megatron lm training ..."; line-break hyphenation is decided as in the repairs
    ("Learn- ing" -> "learning"), before case folding because case is part of the decision.
    """
    if title.isascii() and title.isprintable() and "- " not in title:
        # Most titles: nothing to fold, no accent, no control character (a NUL is deleted, the
        # others become spaces that may make a "- " break), no hyphenation to join; the words
        # as below, in a third of the time (the catalogue imports normalise every title).
        return _NON_WORD.sub(" ", title.lower()).strip()
    return _normalize_title_slow(title)


def _normalize_title_slow(title: str) -> str:
    text = _strip_accents(_unicode_fold(title))
    if "- " in text:
        text = _HYPHEN_BREAK.sub(_join_break, text)
    return _SPACE.sub(" ", _NON_WORD.sub(" ", text.casefold())).strip()


def _join_break(m: re.Match[str]) -> str:
    if m[2].lower() in SUSPENDED_NEXT and not m[3]:
        return m[0]
    return join_hyphenated(m[1], m[2], bool(m[3])) + m[3]


def compact_title(title: str) -> str:
    """Return the normalised title without spaces, to compare titles whose words are glued."""
    return normalize_title(title).replace(" ", "")


def single_spaced(text: str) -> str:
    """Return the text with its whitespace runs as single spaces, and none at either end."""
    # A printable text's only whitespace is " " (the others are all non-printable), so with no
    # double, leading or trailing space it is already single-spaced: most references.
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())
