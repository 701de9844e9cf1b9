"""Field conflicts: a field the reference and the candidate both carry, with different values.

The whole-string validation (curation.resolution.validate) asks which of the candidate's own
fields appear in the reference. That finds a work but cannot see a contradiction: a reference to
"1893, vol. 128, p. 480" also finds the 1892 paper at vol. 126 p. 484 by its title. Here the
reference's parsed fields are compared with the candidate's, field by field:

- volume and first page: both given and different, and the candidate's value appears nowhere
  in the string (so a parser that took the wrong number cannot refuse a right link);

- issue: both plain numbers and different, unless the volume and the first page both stand in
  the string (then the issue is the one misprinted);
- part of: the reference names the candidate as its container (a chapter of that book, a
  paper in those proceedings: a part, not the whole).

A journal name that differs is only reported (container_differs), never a refusal: measured on
the glutton-dev strings, every such difference alone was the same journal written another way
("CA Cancer J Clin" / "CA: A Cancer Journal for Clinicians", "New Engl J Med", a typo).

The year and the authors are compared on the whole string (validate: a year ±1 for
online-first; people named in the reference of whom the candidate has none). A field missing on
either side never counts: absence is not contradiction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from curation.catalogue.records import Candidate
from curation.catalogue.text import fold_name, title_norm
from curation.resolution.venues import page_key, venue_key

_DIGITS = re.compile(r"\d+")
# An initial beside a family name: "M.L. Prins", "Prins ML", "Prins, M. L.", "J-P Martin".
_PERSON = re.compile(r"(?:^|[\s,])(?:[A-Z]\.?-?){1,3}(?:\s|$|,)|^[A-Z]\.")
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[a-z])-\s+(?=[a-z])")  # "Gastro- enterology"
_GROUP = re.compile(r"collab|consortium|group|team|project|committee", re.IGNORECASE)


@dataclass(frozen=True)
class CitedFields:
    """The fields a reference's parse gives (empty where the parser is unsure)."""

    volume: str = ""
    first_page: str = ""
    issue: str = ""
    # The folded surnames of the authors that read as people: a name with initials ("M.L.
    # Prins", "Prins ML"), not a collaboration ("ALICE Collaboration").
    people: tuple[str, ...] = ()
    container: str = ""  # the journal or book the reference names, normalised (title_norm)
    container_key: str = ""  # the journal key (venues.venue_key) of a journal reference
    title: str = ""  # the parsed title, normalised

    @classmethod
    def of(cls, volume: str | None, first_page: str | None,
           authors: list[tuple[str, str]], *, journal: str | None = None,
           container: str | None = None, title: str | None = None,
           issue: str | None = None) -> CitedFields:  # fmt: skip
        """Return the fields from a parse's values: volume, first page, (name, surname)s, the
        journal of a journal reference, the container (journal or book) and the title."""
        people = tuple(
            fold_name(surname)
            for name, surname in authors
            if _PERSON.search(name) and not _GROUP.search(name) and len(fold_name(surname)) > 1
        )
        journal = _LINE_BREAK_HYPHEN.sub("", journal or "")
        container = _LINE_BREAK_HYPHEN.sub("", container or "")
        return cls(_number(volume), _number(first_page), _plain(issue), people,
                   title_norm(container), venue_key(journal), title_norm(title or ""))  # fmt: skip

    def people_named(self, candidate: Candidate) -> bool:
        """Return whether the reference names a person who is not a word of the candidate's
        journal ("J. Cereb. Blood Flow Metab." also reads as the author "J. Cereb")."""
        if not self.people:
            return False
        venue = title_norm(candidate.venue).split()
        return any(p not in venue for p in self.people)


def _plain(value: str | None) -> str:
    """Return an issue as compared: its digits when it is one plain number, else ""."""
    text = (value or "").strip()
    return text.lstrip("0") or text if text.isdigit() else ""


# Every candidate's volume and page is compared for each reference it is checked against, and
# they repeat: remembered (a pure function of the text).
@lru_cache(maxsize=65_536)
def _number(value: str | None) -> str:
    """Return a volume or page as compared: its digits ("AC19", "D60", "e1234" print a series or
    an article letter some sources drop), or "" unless it is a plain number."""
    digits = page_key(value or "").lstrip("abcdefghijklmnopqrstuvwxyz").lstrip("0")
    return digits if _DIGITS.fullmatch(digits) else ""


def find_conflicts(
    cited: CitedFields,
    candidate: Candidate,
    *,
    volume_found: bool,
    first_page_found: bool,
) -> dict[str, dict[str, str]]:
    """Return the fields both sides carry that disagree: {field: {reference, work}}.

    The *_found flags say whether the candidate's value stands in the string (validate).
    """
    found: dict[str, dict[str, str]] = {}
    volume = _number(candidate.volume)
    if cited.volume and volume and cited.volume != volume and not volume_found:
        found["volume"] = {"reference": cited.volume, "work": candidate.volume}
    page = _number(candidate.first_page)
    if cited.first_page and page and cited.first_page != page and not first_page_found:
        found["first_page"] = {"reference": cited.first_page, "work": candidate.first_page}
    issue = _plain(candidate.issue)
    # Both plain numbers: "3-4", "Suppl 2" and the like are written too many ways to compare.
    if cited.issue and issue and cited.issue != issue and not (volume_found and first_page_found):
        found["issue"] = {"reference": cited.issue, "work": candidate.issue}
    if (
        cited.title
        and cited.container == candidate.title_norm
        and cited.title != candidate.title_norm
    ):  # a chapter of a book, a paper of a proceedings volume: not the whole
        found["part_of"] = {"reference": cited.title, "work": candidate.title}
    return found


def container_differs(cited: CitedFields, candidate: Candidate, *, venue_found: bool) -> bool:
    """Return whether the reference's journal is not the candidate's (as far as keys tell) and
    the candidate's is nowhere in the string: evidence for curators, not a refusal."""
    keys = candidate.venue_keys
    return (
        bool(cited.container_key and keys and cited.container_key not in keys) and not venue_found
    )
