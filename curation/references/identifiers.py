"""Find and validate arXiv ids, DOIs, GitHub references and URLs in reference text."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

# Archives that issued old-style identifiers (archive/YYMMNNN) before April 2007.
OLD_ARCHIVES = frozenset(
    "acc-phys adap-org alg-geom ao-sci astro-ph atom-ph bayes-an chao-dyn chem-ph cmp-lg "
    "comp-gas cond-mat cs dg-ga funct-an gr-qc hep-ex hep-lat hep-ph hep-th math math-ph "
    "mtrl-th nlin nucl-ex nucl-th patt-sol physics plasm-ph q-alg q-bio q-fin quant-ph "
    "solv-int stat supr-con".split()
)

_ARXIV_CONTEXT = (
    r"(?:arxiv(?:\s*(?:e-prints|preprint)[,:]?)?\s*(?:abs/)?[:.]?\s*"
    r"|abs/|pdf/|arxiv\.org/(?:abs|pdf)/)"
)
# One to six digits after the dot: fewer than four is a broken id that must be reported.
_NEW_WITH_CONTEXT = re.compile(_ARXIV_CONTEXT + r"(\d{4})\.(\d{1,6})(v\d+)?(?![\d])", re.IGNORECASE)
# A new-style id written under an archive name: "astro-ph/0710.3113", "arxiv:cs.LG/1301.0604".
_ARCHIVE_NEW = re.compile(
    r"(?<![\w.-])([a-z]+(?:-[a-z]+)?)(?:\.[A-Za-z]{2})?/(\d{4})\.(\d{4,5})(v\d+)?(?!\d|\.\d)"
)
# A bare new-style id as the last item of a reference, after a comma or the year:
# "Phys. Rev. D80, 014002 (2009), 0901.0657" (INSPIRE/physics style).
_NEW_AT_END = re.compile(
    r"(?:[,;)]|\(\d{4}\))\s*(\d{4})\.(\d{4,5})(v\d+)?\s*(?:\[[\w.\- ]*\]\s*)*[.,;]?\s*$"
)
# What _NEW_AT_END's id needs, found from its stop so the scan jumps between stops: a digit on
# either side ("0901.0657"). Most reference endings ("… 2009.") have none.
_DIGIT_DOT_DIGIT = re.compile(r"\.(?<=\d\.)\d")
# "doi:10.1145" with nothing after the prefix, or "doi:10" cut short.
_DOI_NO_SUFFIX = re.compile(
    r"d(?<!\wd)oi\s*[:.]?\s*(10(?:\.\d{1,9})?+)(?!\s*/|\.?\d|%2f)", re.IGNORECASE
)
# Words glued after a DOI by PDF extraction: "….URL http://…", "….PMID:2084…".
# Case matters: "j.issn.1674-8999…" is part of real DOIs, "….URL" never is.
_DOI_GLUED_WORD = re.compile(
    r"\.(?:URL|Url|PMID|pmid|PMCID|PMC\d|Epub|Available|Accessed|Retrieved)\b.*$"
)
_DOI_GLUED_YEAR = re.compile(r"\((?:19|20)\d\d\)?$")
# "…/npg-21-379-2014.(a) 2012": a list label glued after the DOI's closing stop.
_DOI_GLUED_LABEL = re.compile(r"\.\((?:[a-z]|[ivx]{1,4})\)$", re.IGNORECASE)
# A bare new-style id is only trusted when followed by an arXiv category, e.g. "1207.7214 [hep-ex]".
_NEW_WITH_CATEGORY = re.compile(
    r"(\d(?<![\w./]\d)\d{3})\.(\d{4,5})(v\d+)?\s*\[[a-z-]+(?:\.[A-Za-z-]+)?\]"
)
_OLD = re.compile(
    r"(?<![\w.-])([a-z]+(?:-[a-z]+)?)(?:\.[A-Za-z]{2}(?:-[a-z]{2})?)?/(\d{7})(v\d+)?(?![\d])"
)
# What _ARCHIVE_NEW and _OLD both need ("astro-ph/0710…", "cs.LG/1301…"), in a scan that jumps
# from one "/" to the next: most slashes are in URLs and DOIs.
_LETTER_SLASH_DIGIT = re.compile(r"/(?<=[A-Za-z]/)\d")
_ARCHIVE_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-")
_DOI = re.compile(r"1(?<![\w.\-]1)0\.\d{4,9}(?:/|%2F)[^\s\"<>]*", re.IGNORECASE)
_GITHUB = re.compile(
    r"github\.com/([\w.-]+)/([\w.-]+)/(issues|pull|pulls|commit|commits)/([0-9a-f]{7,40}|\d+)",
    re.IGNORECASE,
)
URL_RE = re.compile(r"(?:https?://|www\.)[^\s<>\"]+", re.IGNORECASE)
_TRACKING = re.compile(r"^(?:utm_\w+|fbclid|gclid|mc_cid|mc_eid|ref_src|_hsenc|_hsmi)$", re.I)
_TRAILING = ".,;:'\"!?”’»"
_THIS_YEAR = datetime.date.today().year
# Archives of the category-style prefixes people put before new ids ("cs.LG/1301.0604").
_NEW_ARCHIVES = frozenset("cs econ eess q-bio q-fin stat math physics".split())


@dataclass(frozen=True, slots=True)
class ArxivId:
    """An arXiv identifier; `id` carries no version."""

    id: str
    version: int | None = None
    scheme: Literal["new", "old"] = "new"

    def __str__(self) -> str:
        return self.id if self.version is None else f"{self.id}v{self.version}"


@dataclass(frozen=True, slots=True)
class Doi:
    """A DOI in lower case (DOIs are case-insensitive)."""

    value: str

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class GithubRef:
    """A GitHub issue, pull request or commit."""

    owner: str
    repo: str
    kind: Literal["issue", "pull", "commit"]
    ref: str

    def __str__(self) -> str:
        path = {"issue": "issues", "pull": "pull", "commit": "commit"}[self.kind]
        return f"{self.owner}/{self.repo}/{path}/{self.ref}"


@dataclass(frozen=True, slots=True)
class Malformed:
    """An identifier that looks intended but cannot be valid."""

    scheme: Literal["arxiv", "doi"]
    raw: str
    reason: str


@dataclass(frozen=True, slots=True)
class Identifiers:
    """Everything identifying found in one reference."""

    arxiv: tuple[ArxivId, ...] = ()
    dois: tuple[Doi, ...] = ()
    github: tuple[GithubRef, ...] = ()
    urls: tuple[str, ...] = ()
    malformed: tuple[Malformed, ...] = field(default=())

    def __bool__(self) -> bool:
        return bool(self.arxiv or self.dois or self.github)


def new_style_problem(yymm: str, number: str) -> str | None:
    """Return why a new-style arXiv id is invalid, or None when it is valid."""
    yy, mm = int(yymm[:2]), int(yymm[2:])
    if not 1 <= mm <= 12:
        return f"month {mm:02d} is not 01-12"
    if yy < 7 or (yy == 7 and mm < 4):
        return "new-style ids start in April 2007"
    want = 5 if yy >= 15 else 4
    if len(number) != want:
        return f"{yymm} ids have {want}-digit numbers, not {len(number)}"
    return None


def _old_problem(archive: str, digits: str) -> str | None:
    if archive not in OLD_ARCHIVES:
        return f"unknown archive {archive}"
    yy, mm = int(digits[:2]), int(digits[2:4])
    if not 1 <= mm <= 12:
        return f"month {mm:02d} is not 01-12"
    if 7 < yy < 91:
        return "old-style ids run from 1991 to 2007"
    return None


def parse_arxiv(text: str) -> ArxivId | None:
    """Return the arXiv id in an id-only string such as '2401.11202v4' or 'hep-th/9711200'."""
    text = text.strip()
    m = re.fullmatch(r"(?:arxiv:)?(\d{4})\.(\d{4,5})(?:v(\d+))?", text, re.IGNORECASE)
    if m and new_style_problem(m[1], m[2]) is None:
        return ArxivId(f"{m[1]}.{m[2]}", int(m[3]) if m[3] else None)
    m = re.fullmatch(r"(?:arxiv:)?([a-z-]+)(?:\.[A-Za-z-]+)?/(\d{7})(?:v(\d+))?", text, re.I)
    if m and _old_problem(m[1].lower(), m[2]) is None:
        return ArxivId(f"{m[1].lower()}/{m[2]}", int(m[3]) if m[3] else None, "old")
    return None


def _clean_doi(raw: str) -> str:
    doi = unquote(raw)
    # What follows a DOI in a PDF often sticks to it: "…/055008[arXiv:…]", "…/181602,hep-th/…",
    # "….URL https://…", "…/c9ee00453j(2019)". No registered DOI holds "[" or "," in practice.
    for stop in ("[", ","):
        if stop in doi:
            doi = doi[: doi.index(stop)]
    if "." in doi:
        doi = _DOI_GLUED_WORD.sub("", doi)
    doi = _strip_trailing(doi)
    if doi.endswith(")") and _DOI_GLUED_LABEL.search(doi):
        doi = _DOI_GLUED_LABEL.sub("", doi)
    if "(" in doi and _DOI_GLUED_YEAR.search(doi):
        doi = _strip_trailing(_DOI_GLUED_YEAR.sub("", doi))
    opened = doi.rfind("(")
    if opened > doi.rfind(")") and doi[opened + 1 : opened + 2].isalpha():
        doi = _strip_trailing(doi[:opened])  # "….551(in korean with…": prose, not the DOI
    return doi.lower()


def _strip_trailing(doi: str) -> str:
    # Trailing punctuation belongs to the sentence, except a ")" or "]" that closes a "(" or "["
    # inside the DOI (SICI DOIs hold brackets).
    while doi and (
        doi[-1] in _TRAILING
        or (doi[-1] == ")" and doi.count("(") < doi.count(")"))
        or (doi[-1] == "]" and doi.count("[") < doi.count("]"))
    ):
        doi = doi[:-1]
    return doi


# --- identifiers given as values (Crossref, Retraction Watch, URLs, what a curator types) ------

ARXIV_DOI_PREFIX = "10.48550/arxiv."  # DataCite's DOIs for arXiv papers, lower-cased
_DOI_VALUE_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*|doi\s+)", re.IGNORECASE)
_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV_NEW_SHAPE = re.compile(r"^\d{2}(0[1-9]|1[0-2])\.\d{4,5}(v\d+)?$")
_ARXIV_OLD_SHAPE = re.compile(
    r"^[a-z][a-z\-]*(\.[A-Za-z\-]{2,})?/\d{2}(0[1-9]|1[0-2])\d{3}(v\d+)?$"
)


def canonical_doi(value: str | None) -> str | None:
    """Return a DOI given as a value in canonical form (bare, URL-decoded, lower-case), or None.

    The same trailing-punctuation rule as DOIs found in reference text: what ends a sentence is
    not the DOI's; inner commas and semicolons (SICI DOIs) are part of it and stay.
    """
    if value is None:
        return None
    doi = _strip_trailing(unquote(_DOI_VALUE_PREFIX.sub("", value.strip())).strip().lower())
    return doi if _DOI_SHAPE.match(doi) else None


def doi_key(doi: str) -> str:
    """Return a stored DOI in the form citerec keeps and compares DOIs in (DOIs are case-blind).

    For values already known to be DOIs (catalogue rows, stored links); anything typed or sent
    by a person or a source goes through canonical_doi, which also refuses what is not a DOI.
    """
    return doi.strip().lower()


_ARXIV_VALUE_PREFIX = re.compile(
    r"^(?:https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE
)


def canonical_arxiv_id(value: str | None) -> str | None:
    """Return an arXiv id given as a value (`arXiv:1604.06174v2`, an abs or pdf URL) bare and
    without its version, or None when it is not shaped like one."""
    if value is None:
        return None
    text = _ARXIV_VALUE_PREFIX.sub("", value.strip()).strip().removesuffix(".pdf")
    text = re.sub(r"v\d+$", "", text)
    return text if looks_like_arxiv_id(text) else None


class NotAnArxivId(ValueError):
    """A paper id that is not an arXiv id: nothing is created for it."""


def clean_arxiv_id(value: str) -> str | None:
    """Return the bare arXiv id in 'arXiv:2401.00001v2', '2401.00001', 'hep-th/9901001'.

    The paper a reference list or an ingestion is for (parse_arxiv's rule, as in a reference's
    text); canonical_arxiv_id is the rule for an identifier a curator types or links. An id
    written as its abs or pdf URL ('https://arxiv.org/abs/2502.00007v2') is that id too."""
    parsed = parse_arxiv(value.strip())
    if parsed is None and _ARXIV_VALUE_PREFIX.match(value.strip()):
        return canonical_arxiv_id(value)
    return parsed.id if parsed else None


def not_an_arxiv_id(value: str) -> str:
    """Say why `value` is not an arXiv id, for people."""
    shown = value if len(value) <= 80 else value[:77] + "..."
    return (
        f"{shown!r} is not an arXiv id "
        "(expected e.g. 2401.00001, arXiv:2401.00001v2 or hep-th/9901001)"
    )


def required_arxiv_id(value: str) -> str:
    """Return the bare arXiv id in `value`; raise NotAnArxivId when there is none."""
    arxiv_id = clean_arxiv_id(value)
    if arxiv_id is None:
        raise NotAnArxivId(not_an_arxiv_id(value))
    return arxiv_id


def curated_identifier(value: str) -> tuple[str, str] | None:
    """Return ("doi", doi) or ("arxiv", id) for an identifier a person typed, cleaned, or None.

    The one rule for curated input: the admin's forms, the API and the decision services all
    clean through it, so a DOI URL with a trailing full stop and `arXiv:…v2` mean the same
    everywhere."""
    doi = canonical_doi(value)
    if doi is not None:
        return "doi", doi
    arxiv_id = canonical_arxiv_id(value)
    return ("arxiv", arxiv_id) if arxiv_id is not None else None


def is_arxiv_doi(doi: str | None) -> bool:
    """Return whether a DOI is one DataCite minted for an arXiv paper (10.48550/arXiv.*)."""
    return doi is not None and doi.lower().startswith(ARXIV_DOI_PREFIX)


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """Return the arXiv id inside an arXiv DOI (`10.48550/arXiv.2412.14374`), or None."""
    if doi is None or not is_arxiv_doi(doi):
        return None
    return doi[len(ARXIV_DOI_PREFIX) :]


def arxiv_doi(arxiv_id: str) -> str:
    """Return the DOI DataCite minted for an arXiv paper, lower-cased as citerec stores DOIs."""
    return f"{ARXIV_DOI_PREFIX}{arxiv_id.lower()}"


def looks_like_arxiv_id(value: str) -> bool:
    """Return whether value has the shape of a new-style or old-style arXiv id (URLs, forms)."""
    return bool(_ARXIV_NEW_SHAPE.match(value) or _ARXIV_OLD_SHAPE.match(value))


def normalize_url(raw: str) -> str:
    """Return the URL with scheme/host lowercased, no fragment, tracking or trailing dots."""
    url = raw.strip().strip("<>")
    while url and (url[-1] in _TRAILING or (url[-1] == ")" and url.count("(") < url.count(")"))):
        url = url[:-1]
    if url.lower().startswith("www."):
        url = "https://" + url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    query = urlencode(
        [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not _TRACKING.match(k)
        ]
    )
    host = parts.netloc.lower()
    if host.endswith(":80") and parts.scheme.lower() == "http":
        host = host[:-3]
    elif host.endswith(":443"):
        host = host[:-4]
    return urlunsplit((parts.scheme.lower(), host, parts.path, query, ""))


_NO_IDENTIFIERS = Identifiers()


def case_blind_start(text: str, lowered: str, *words: str) -> int:
    """Return where a case-blind scan for patterns that open with one of `words` may start.

    In ASCII text no match starts before the first of the words in `lowered`; elsewhere a
    lower-cased character may change length, or match a word letter only case-blind ("ı", "ſ"),
    so the scan starts at 0.
    """
    if not text.isascii():
        return 0
    found = [i for i in map(lowered.find, words) if i >= 0]
    return min(found) if found else len(text)


def extract_identifiers(text: str) -> Identifiers:
    """Return the identifiers in already repaired reference text, validated.

    Each scheme has its finder, called in this order (the order of ids in the result):
    arXiv ids written new-style, those written under an archive name and old-style ones,
    DOIs (with the arXiv ids inside DataCite's arXiv DOIs), then URLs and GitHub references.
    """
    found = FoundIdentifiers(text)
    find_new_style_arxiv_ids(found)
    find_archive_arxiv_ids(found)
    find_dois(found)
    find_urls(found)
    return found.identifiers()


@dataclass(slots=True)
class FoundIdentifiers:
    """The identifiers found so far in one reference text, each kept once, in order found."""

    text: str
    lowered: str = ""
    arxiv: dict[str, ArxivId] = field(default_factory=dict)
    dois: dict[str, Doi] = field(default_factory=dict)
    github: dict[str, GithubRef] = field(default_factory=dict)
    urls: list[str] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lowered = self.text.lower()

    def add_arxiv(self, aid: ArxivId) -> None:
        """Keep an arXiv id unless one with the same id (any version) is already kept."""
        self.arxiv.setdefault(aid.id, aid)

    def add_new_style(self, m: re.Match[str], at: int = 1) -> None:
        """Keep a new-style id matched as (yymm, number, version) from group `at`, or report it."""
        yymm, number, version = m[at], m[at + 1], m[at + 2]
        problem = new_style_problem(yymm, number)
        if problem:
            self.malformed.append(Malformed("arxiv", m[0].strip(), problem))
        else:
            self.add_arxiv(ArxivId(f"{yymm}.{number}", int(version[1:]) if version else None))

    def identifiers(self) -> Identifiers:
        """Return what was found as the frozen Identifiers."""
        if not (self.arxiv or self.dois or self.github or self.urls or self.malformed):
            return _NO_IDENTIFIERS  # most references; the dataclass is frozen, so one can be shared
        return Identifiers(
            tuple(self.arxiv.values()),
            tuple(self.dois.values()),
            tuple(self.github.values()),
            tuple(self.urls),
            tuple(self.malformed),
        )


def find_new_style_arxiv_ids(found: FoundIdentifiers) -> None:
    """Find new-style ids after an arXiv word, before a category, or last in the reference."""
    text, lowered = found.text, found.lowered
    if "arxiv" in lowered or "abs/" in lowered or "pdf/" in lowered:
        start = case_blind_start(text, lowered, "arxiv", "abs/", "pdf/")
        for m in _NEW_WITH_CONTEXT.finditer(text, start):
            found.add_new_style(m)
    if "[" in text:
        for m in _NEW_WITH_CATEGORY.finditer(text):
            found.add_new_style(m)
    end = _new_style_id_at_end(text)
    # No context word: trusted only when valid and not from the future, never reported.
    if end and new_style_problem(end[1], end[2]) is None and int(end[1][:2]) <= _THIS_YEAR % 100:
        found.add_new_style(end)


def _new_style_id_at_end(text: str) -> re.Match[str] | None:
    """Return a bare new-style id that ends the reference ("… (2009), 0901.0657"), if any."""
    last = text.rstrip(" .,;")[-1:]
    if not (last.isdigit() or last == "]"):
        return None
    tail = text[-60:]
    return _NEW_AT_END.search(tail) if _DIGIT_DOT_DIGIT.search(tail) else None


def find_archive_arxiv_ids(found: FoundIdentifiers) -> None:
    """Find ids written under an archive name: "astro-ph/0710.3113" and old-style "hep-th/9711200"."""
    text = found.text
    if "/" not in text or not (slash := _LETTER_SLASH_DIGIT.search(text)):
        return
    # No match starts before the run of name characters that ends at the first such "/":
    # every match holds one, and names hold no "/". The scans start there.
    start = slash.start()
    while start > 0 and text[start - 1] in _ARCHIVE_NAME_CHARS:
        start -= 1
    for m in _ARCHIVE_NEW.finditer(text, start):
        archive = m[1].lower()
        if archive in OLD_ARCHIVES or archive in _NEW_ARCHIVES:
            found.add_new_style(m, at=2)
    for m in _OLD.finditer(text, start):
        archive = m[1].lower()
        if archive in OLD_ARCHIVES and _old_problem(archive, m[2]) is None:
            found.add_arxiv(ArxivId(f"{archive}/{m[2]}", int(m[3][1:]) if m[3] else None, "old"))


def find_dois(found: FoundIdentifiers) -> None:
    """Find DOIs, report those cut short after the prefix, and keep the arXiv id of an arXiv DOI."""
    text, lowered = found.text, found.lowered
    if "doi" in lowered:
        for m in _DOI_NO_SUFFIX.finditer(text, case_blind_start(text, lowered, "doi")):
            found.malformed.append(
                Malformed("doi", m[0].strip(), "DOI has no suffix after the prefix")
            )
    if "10." not in text:
        return
    for m in _DOI.finditer(text):
        doi = _clean_doi(m[0])
        _, _, suffix = doi.partition("/")
        if not suffix:
            found.malformed.append(Malformed("doi", m[0], "DOI has no suffix after the prefix"))
            continue
        found.dois.setdefault(doi, Doi(doi))
        arxiv_part = arxiv_id_from_doi(doi)
        if arxiv_part and (aid := parse_arxiv(arxiv_part)):
            found.add_arxiv(aid)


def find_urls(found: FoundIdentifiers) -> None:
    """Find URLs, normalised, and the GitHub issues, pull requests and commits among them."""
    if "://" not in found.text and "www." not in found.lowered:
        return
    for m in URL_RE.finditer(found.text):
        url = normalize_url(m[0])
        if url not in found.urls:
            found.urls.append(url)
        gref = github_ref(url)
        if gref is not None:
            found.github.setdefault(str(gref), gref)


def github_ref(url: str) -> GithubRef | None:
    """Return the GitHub issue, pull request or commit a normalised URL points to, or None."""
    g = _GITHUB.search(url)
    if g is None:
        return None
    kind = g[3].lower().rstrip("s")
    return GithubRef(
        g[1].lower(),
        g[2].lower(),
        "issue" if kind == "issue" else kind,  # type: ignore[arg-type]
        g[4].lower(),
    )
