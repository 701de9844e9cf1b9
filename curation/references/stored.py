"""A reference's parse kept as JSON beside its observation, read back without parsing again.

A reference is parsed once, when its list is imported; resolution reads the stored parse.
A parse stored by other parser code would not be what parsing now gives, so each stored parse
carries PARSE_VERSION, a digest of the parser's modules: after any change to them, a stored
parse is not read back (the caller parses again) and the resolver never decides on a stale one.
It carries a digest of the text it was made from too: one written beside a text changed since
(by a path that forgot it) is not read back either.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from curation.references.authors import Author
from curation.references.identifiers import ArxivId, Doi, GithubRef, Identifiers, Malformed
from curation.references.parse import ParsedReference
from curation.references.repair import Repair


def _parser_digest() -> str:
    # The parser is the package's top-level modules (formats/ and latex_source/ only read lists).
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


PARSE_VERSION = _parser_digest()
_SCALARS = (
    "kind", "title", "title_usable", "title_problem", "year", "venue", "volume", "issue",
    "pages", "url", "journal", "container", "first_page",
)  # fmt: skip


def _text_digest(raw: str) -> str:
    return hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()


def stored_parse(parsed: ParsedReference) -> dict[str, Any]:
    """Return the parse as JSON, without its raw text (the observation holds it)."""
    ids = parsed.identifiers
    out: dict[str, Any] = {"v": PARSE_VERSION, "of": _text_digest(parsed.raw)}
    out.update({name: getattr(parsed, name) for name in _SCALARS})
    if parsed.text != parsed.raw:
        out["text"] = parsed.text
    out["authors"] = [[a.name, a.surname] for a in parsed.authors]
    out["ids"] = {
        "arxiv": [[a.id, a.version, a.scheme] for a in ids.arxiv],
        "doi": [d.value for d in ids.dois],
        "github": [[g.owner, g.repo, g.kind, g.ref] for g in ids.github],
        "urls": list(ids.urls),
        "malformed": [[m.scheme, m.raw, m.reason] for m in ids.malformed],
    }
    out["repairs"] = [[r.kind, r.before, r.after] for r in parsed.repairs]
    out["warnings"] = list(parsed.warnings)
    return out


def parse_from_stored(raw: str, stored: Any) -> ParsedReference | None:
    """Return the parse of `raw` kept in `stored`; None when it was stored by other parser
    code, of another text, or is not a stored parse (the caller parses `raw` again)."""
    if not isinstance(stored, dict) or stored.get("v") != PARSE_VERSION:
        return None
    if stored.get("of") != _text_digest(raw):
        return None
    try:
        ids = stored["ids"]
        identifiers = Identifiers(
            arxiv=tuple(ArxivId(i, v, s) for i, v, s in ids["arxiv"]),
            dois=tuple(Doi(d) for d in ids["doi"]),
            github=tuple(GithubRef(o, r, k, ref) for o, r, k, ref in ids["github"]),
            urls=tuple(ids["urls"]),
            malformed=tuple(Malformed(s, r, why) for s, r, why in ids["malformed"]),
        )
        return ParsedReference(
            raw=raw,
            text=stored.get("text", raw),
            authors=[Author(name, surname) for name, surname in stored["authors"]],
            identifiers=identifiers,
            repairs=[Repair(k, before, after) for k, before, after in stored["repairs"]],
            warnings=list(stored["warnings"]),
            **{name: stored[name] for name in _SCALARS},
        )
    except (KeyError, TypeError, ValueError):
        return None  # damaged or of another shape: parsing again is always right
