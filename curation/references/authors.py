"""Recognise author lists: where they end in a reference, and the surnames in them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from curation.references.sentences import ABBREVIATIONS
from curation.references.words import is_word

_U = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĖĘĚĞĢĪĮİĶĹĻĽŁŃŅŇŌŐŒŔŘŚŞŠŢŤŪŮŰŲŹŻŽ"
_PARTICLE = (
    r"(?:van|von|der|den|de|del|della|di|da|du|dos|das|le|la|ten|ter|bin|al|'t|y"
    r"|Van|Von|De|Del|Della|Di|Da|Du|Le|La)"
)
_SW = rf"(?:Mc|Mac|O['’])?[{_U}][^\W\d_]*(?:['’][^\W\d_]+)?(?:-[{_U}]?[^\W\d_]+)*"
_SUR = rf"(?:{_PARTICLE}\s+)*{_SW}"
_INITS = rf"[{_U}][a-z]?\.(?:\s*(?:-\s*)?[{_U}][a-z]?\.)*"
_INV_NAME = rf"{_SUR},\s*{_INITS}"
# ACS separates inverted names with semicolons: "Smith, J.; Doe, A."
_SEP = r"(?:[,;]\s*(?:(?:&|and)\s*)?|\s+(?:&|and)\s+|,?\s*(?:…|\.\.\.)\s*)"
_ETAL = r"(?:,?\s*et\s*al\.?)?"
# "Knuth, D. E." / "Clarke, E.M., Grumberg, O., et al." at the start of a reference.
# The list ends before a space, a colon, or a comma after which no name follows ("Zhang, R. B.,
# Quantum supergroups…", "T.W., 1996,"; not ", and R. Tibshirani", ", Jr.", ", ... &").
INVERTED_LIST = re.compile(
    rf"^{_INV_NAME}(?:{_SEP}{_INV_NAME})*{_ETAL}"
    r"(?=[\s:]|$|,(?!\s*(?:and\b|&|Jr\b|Sr\b|[A-Z][\w'’-]*,|[A-Z]?\.)))"
)
_INIT_NAME = rf"(?:[{_U}][a-z]?\.\s*(?:-\s*)?)+{_SUR}"
# Surname then initials, no comma between: Vancouver "Yang F, Lim GP, Vellin J-F" and the
# astronomy "Abel T., Bryan G. L." shapes.
# Dotted initials first: "Adriani O. et al." must keep its stop, "Biró T S" has spaced ones.
_SUR_INITS = rf"{_SUR}\s+(?:{_INITS}|[{_U}]{{1,3}}(?:-[{_U}])?(?:\s[{_U}](?![\w.]))*(?!\w))"
SURNAME_FIRST_LIST = re.compile(
    rf"^{_SUR_INITS}(?:(?:,\s*(?:and\s+|&\s*)?|\s+(?:and|&)\s+){_SUR_INITS})*{_ETAL}(?=\s*[,.:;(]|(?<=\.)\s|\s+(?:1[6-9]|20)\d\d)"
)
_TRAILING_INITIALS = re.compile(rf"^[{_U}]{{1,3}}(?:-[{_U}])?$|^(?:[{_U}][a-z]?\.-?)+$")
# "J. M. Maldacena, S. S. Gubser and A. M. Polyakov et al. (ATLAS Collaboration)," (physics/IEEE).
INITIALS_FIRST_LIST = re.compile(
    rf"^(?:[{_U}]\w+\s+Collaboration,\s*)?{_INIT_NAME}(?:(?:,\s*(?:and\s+)?|\s+and\s+){_INIT_NAME})*{_ETAL}(?:\s*\([^)]*\))?(?=\s*[,.:;]|$)"
)
_INITIALS_ONLY = re.compile(rf"^(?:[{_U}](?:[a-z]?\.|(?=[\s-]|$))[\s-]*)+$")
ORG_WORDS = frozenset(
    "collaboration association team project consortium contributors group institute foundation "
    "inc ltd lab laboratory research organization development society committee council "
    "corporation company university ai".split()
)
# The particles as a set: a membership test is cheaper than _PARTICLE as a full match.
_PARTICLES = frozenset(_PARTICLE[3:-1].split("|"))
# The stop after a capital initial glued to a capitalised word: ". " undoes it. Stop first, so
# the scan jumps from one "." to the next.
_GLUED_INITIAL = re.compile(rf"\.(?<=[{_U}]\.)(?=[{_U}][a-z])")
DIGIT = re.compile(r"\d")
_EDITOR_ETAL = re.compile(r"\((?:[Ee]ds?|[Hh]rsg)\.?\)|e(?<!\we)t\s*al\.?|,?\s*and others\b")
_AND = re.compile(r"\s*(?:&|a(?<!\wa)nd\b|…|\.\.\.)\s*")
_PIECES = re.compile(r",|a(?<!\wa)nd\b|&")
_ACS_SEMICOLON = re.compile(r"(?<=\.)\s*;")  # only after an initial: "Vita ; Volume II" is no list
_TRAILING_PAREN = re.compile(r"\s*\([^)]*\)\s*$")
# Title words that never occur in an author list; one of them rules a name list out quickly.
# Each word is matched first and its leading word boundary checked behind it ("of(?<!\wof)" is
# "\bof"): a pattern that opens with literals lets the scan jump between candidate letters.
_TITLE_WORDS = "of the for with in on to a an using via from by is are toward towards".split()
_TITLE_WORD = re.compile("(?:" + "|".join(rf"{w}(?<!\w{w})" for w in _TITLE_WORDS) + r")\b")
_NOT_NAME = frozenset(
    "a an and the of for in on to with using via from by at is are as or toward towards into "
    "about over under".split()
)


@dataclass(frozen=True, slots=True)
class Author:
    """One author as printed, with the surname used for matching."""

    name: str
    surname: str

    def to_dict(self) -> dict[str, str]:
        """Return the author as a JSON-able dict."""
        return {"name": self.name, "surname": self.surname}


def _is_initials(piece: str) -> bool:
    return len(piece) <= 12 and _INITIALS_ONLY.match(piece) is not None


def _name_words_ok(words: list[str]) -> bool:
    # parse_author_block has already rejected blocks with a digit or a colon.
    if not 1 <= len(words) <= 5:
        return False
    for w in words:
        first = w[0]  # split() never yields an empty word
        if not (first.isupper() or first.isalpha() and not first.islower()):  # capital, caseless
            if w not in _PARTICLES and w[:2] not in ("'t", "’t"):
                return False
        if w[-1] == "." and len(w) > 4 and "." not in w[:-1]:
            return False  # "Transformer." ends a sentence; initials and "Jr." are short
    return True


def _has_org_word(piece: str, words: list[str]) -> bool:
    if "." not in piece:  # nothing to strip from the words: one lower() and split() will do
        return not ORG_WORDS.isdisjoint(piece.lower().split())
    return not ORG_WORDS.isdisjoint(w.lower().strip(".") for w in words)


def _without_trailing_paren(block: str) -> str:
    # Cheap pre-check: _TRAILING_PAREN tries every position, and most blocks end in a name.
    return _TRAILING_PAREN.sub("", block) if block.rstrip().endswith(")") else block


def _may_be_initials(word: str) -> bool:
    """Return False when _TRAILING_INITIALS cannot match: it ends in a capital, "." or "-"."""
    last = word[-1]
    return last == "." or last == "-" or last.isupper()


# A whole Vancouver list, "Yang F, Lim GP, Vellin JF": no clean-up or check in
# parse_author_block would change or reject it.
_SURNAME_INITIALS_LIST = re.compile(r"[A-Z][a-z]+ [A-Z]{1,3}(?:, [A-Z][a-z]+ [A-Z]{1,3})*")
# The commonest pieces, whose surname _direct would find without doubt: Vancouver "Yang F",
# "Vellin-Smith JF" (surname first), and "J. Smith", "J. M. Smith", "J.M. Smith".
_PLAIN_PIECE = re.compile(
    r"(?P<first>[A-Z][A-Za-z]*(?:-[A-Za-z]+)*) [A-Z]{1,3}"
    r"|(?:[A-Z]\. ){1,4}(?P<last>[A-Z][a-z]+)|[A-Z]\.[A-Z]\. (?P<last2>[A-Z][a-z]+)"
)


def _surname_initials(piece: str, surname: str) -> Author:
    """Return what _direct gives for a "Yang F" piece; "Smith AI" is still an organisation."""
    if ORG_WORDS.isdisjoint(piece.lower().split()):
        return Author(piece, surname)
    return Author(piece, piece)


def _plain_piece(piece: str) -> Author | None:
    """Return the author of a _PLAIN_PIECE, as _direct's general path would; else None."""
    m = _PLAIN_PIECE.fullmatch(piece)
    if m is None:
        return None
    if m["first"]:
        return _surname_initials(piece, m["first"])
    surname = m["last"] or m["last2"]
    # Initials are never organisation words; "J. Group" names one.
    return Author(piece, piece) if surname.lower() in ORG_WORDS else Author(piece, surname)


def _direct(piece: str) -> Author | None:
    if author := _plain_piece(piece):
        return author
    if "." in piece:
        piece = _GLUED_INITIAL.sub(". ", piece)  # "R.Gupta", "J.I.Cirac" lost their spaces
    words = piece.split()
    if not _name_words_ok(words):
        return None
    if len(words) > 1 and _has_org_word(piece, words):
        return Author(piece, piece)
    end = len(words)
    # "Yang F", "Bryan G. L.": surname first, initials after it.
    while end > 1 and _may_be_initials(words[end - 1]) and _TRAILING_INITIALS.match(words[end - 1]):
        end -= 1
    if end == len(words):
        start = end - 1
    else:
        start = 0
    while start > 0 and words[start - 1] in _PARTICLES:
        start -= 1
    return Author(piece, " ".join(words[start:end]))


# A given name as Chicago and MLA print it after the first author's family name: "John",
# "John A.", "Mary-Ann".
_GIVEN_NAMES = re.compile(rf"[{_U}][a-z]+(?:-[{_U}][a-z]+)?(?:\s+(?:[{_U}][a-z]+|[{_U}]\.))?")


def _first_name_inverted(pieces: list[str]) -> list[Author] | None:
    """Return the authors of "Smith, John, and Ann Doe" (Chicago, MLA), else None.

    Only the first name is inverted, with its given names spelled out; the others read
    "Given Family". Read piece by piece, "John" would pass for a second author.
    """
    if len(pieces) < 3 or " " in pieces[0] or not _GIVEN_NAMES.fullmatch(pieces[1]):
        return None
    if is_word(pieces[0].lower()) or any(len(p.split()) < 2 for p in pieces[2:]):
        return None
    others = [_direct(p) for p in pieces[2:]]
    if any(a is None or a.name == a.surname for a in others):
        return None
    return [Author(f"{pieces[0]}, {pieces[1]}", pieces[0]), *others]  # type: ignore[list-item]


def parse_author_block(block: str) -> list[Author] | None:
    """Return the authors in a string that should hold only names, or None if it does not."""
    if _SURNAME_INITIALS_LIST.fullmatch(block):
        return [_surname_initials(piece, piece.partition(" ")[0]) for piece in block.split(", ")]
    # No name holds a digit or a colon, nor does anything the clean-up below removes: one
    # of them anywhere settles the answer before the block is split into pieces.
    if ":" in block or _TITLE_WORD.search(block) or DIGIT.search(block):
        return None
    if "et" in block or "(" in block or "others" in block:
        block = _EDITOR_ETAL.sub(" ", block)
    if "&" in block or "and" in block or "…" in block or "..." in block:
        block = _AND.sub(",", block)
    if ";" in block:
        block = _ACS_SEMICOLON.sub(",", block)  # ACS: "Smith, J.; Doe, A."
    block = block.strip(" ,.;")
    pieces = [stripped for p in block.split(",") if (stripped := p.strip())]
    if not pieces:
        return None
    if len(pieces) >= 2 and _is_initials(pieces[1]) and not _is_initials(pieces[0]):
        authors = []
        i = 0
        while i < len(pieces):
            surname = pieces[i]
            if not _name_words_ok(surname.split()):
                return None
            given = pieces[i + 1] if i + 1 < len(pieces) and _is_initials(pieces[i + 1]) else ""
            authors.append(Author(f"{surname}, {given}".strip(", "), surname))
            i += 2 if given else 1
        return authors
    if first_inverted := _first_name_inverted(pieces):
        return first_inverted
    authors = []
    for piece in pieces:  # the first piece that is no name settles it: stop there
        author = _direct(piece)
        if author is None:
            return None
        authors.append(author)
    return authors


def looks_like_name_list(block: str) -> bool:
    """Return whether text is only names, with enough evidence that they are names.

    A list of single capitalised words ("Borg, Omega, and Kubernetes") is not enough:
    it needs an initial, or a multi-word name none of whose words is an English word.
    """
    return name_list(block) is not None


def name_list(block: str) -> list[Author] | None:
    """Return the authors of a block that looks_like_name_list, else None (one parse of it)."""
    authors = parse_author_block(block)
    if not authors:
        return None
    pieces = [p for p in _PIECES.split(block) if p.strip(" .")]
    if any(_is_initials(p.strip()) for p in pieces):
        return authors
    if len(authors) < 2:
        return None
    for a in authors:
        words = a.name.replace(",", " ").split()
        if len(words) >= 2 and not any(is_word(w.lower().strip(".")) or w.isupper() for w in words):
            return authors
    return None


# "ATLAS Collaboration,", "[LIGO Scientific Collaboration]", "Virgo and LIGO Scientific
# collaborations,": an organisation author, possibly followed by the names that signed.
_COLLABORATION = re.compile(
    rf"^\[?(?:The\s+)?[{_U}][\w-]*(?:\s+(?:and\s+)?[{_U}][\w-]*){{0,4}}\s+[Cc]ollaborations?\b\]?"
    r"(?:\s*\([^)]{0,40}\))?(?=\s*[,.:;]|\s+[A-Z])"
)


# "Rasley et al. DeepSpeed: …": one surname and "et al.", then the title.
_SURNAME_ET_AL = re.compile(rf"^({_SUR})\s+et\s*al\.?(?:,\s*|\s+(?=[{_U}\d\"“‘']))")
# "…; Doe, A. J. Am. Chem. Soc. 2010": the last "initial" opens the journal's abbreviated name.
# The "J." (and any two-letter "initials" after it, "Am.") at the end of an inverted list.
_JOURNAL_INITIAL = re.compile(r"\s+J\.(?:\s*[A-Z][a-z]\.)*$")
_ABBREVIATED_WORD = re.compile(r"J\.\s*([A-Z][a-z]{1,8})\.(?:\s|$)")


def _journal_initial_given_back(names: str, rest: str) -> tuple[str, str]:
    """Return names and rest with a trailing "J." moved to the rest when a journal follows it.

    ACS and other title-less styles put the abbreviated journal right after the names: in
    "Doe, A. J. Am. Chem. Soc. 2010, 132, 1234" the "J." (and "Am.", which reads as a
    two-letter initial like "Yu.") pass for Doe's initials, and the journal loses its first
    words. "J." then an abbreviation of a journal word ("Am.", "Phys.") opens a journal's name.
    """
    m = _JOURNAL_INITIAL.search(names)
    if m is None:
        return names, rest
    moved = f"{names[m.start() :].strip()} {rest}"
    word = _ABBREVIATED_WORD.match(moved)
    if word is None or word[1].lower() not in ABBREVIATIONS:
        return names, rest
    return names[: m.start()].rstrip(), moved


def take_author_prefix(text: str) -> tuple[list[Author], str] | None:
    """Return the leading author list and the rest, for inverted or initials-first lists."""
    m = _COLLABORATION.match(text) if "ollaboration" in text[:80] else None
    if m and not INITIALS_FIRST_LIST.match(text):
        name = m[0].strip("[] ")
        rest = text[m.end() :].lstrip(" ,.:;")
        # "ATLAS collaboration, G. Aad et al., Title": the signatories belong to the author list.
        signed = next(
            (p.match(rest) for p in (INITIALS_FIRST_LIST, INVERTED_LIST) if p.match(rest)), None
        )
        if signed and (names := parse_author_block(_without_trailing_paren(signed[0]))):
            return [Author(name, name), *names], rest[signed.end() :].lstrip(" ,.:;")
        return [Author(name, name)], rest
    for pattern in (INVERTED_LIST, INITIALS_FIRST_LIST, SURNAME_FIRST_LIST):
        m = pattern.match(text)
        if m:
            block, after = m[0], text[m.end() :].lstrip(" ,.:;")
            if pattern is INVERTED_LIST:
                block, after = _journal_initial_given_back(block, after)
            listed = parse_author_block(_without_trailing_paren(block))
            if listed:
                return listed, after
    m = _SURNAME_ET_AL.match(text) if "al" in text[:60] else None
    if m and not is_word(m[1].lower()):
        return [Author(f"{m[1]} et al.", m[1])], text[m.end() :]
    return None
