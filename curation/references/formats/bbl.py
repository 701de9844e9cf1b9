"""LaTeX bibliographies (.bbl): thebibliography with \\bibitem (plain and natbib) and biblatex."""

from __future__ import annotations

import re
from collections.abc import Iterator

from curation.references.formats.base import LineCounter, SourceReference, make_reference
from curation.references.formats.compose import compose_raw
from curation.references.latex import latex_to_text

_BIBITEM = re.compile(r"\\bibitem\s*")
_ENTRY = re.compile(r"\\entry\{([^}]*)\}\{([^}]*)\}")
_END_BIB = re.compile(r"\\end\{thebibliography\}")
_FIELD = re.compile(r"\\(?:field|list)\{(\w+)\}\{")
_VERB = re.compile(r"\\verb\{(\w+)\}\s*\\verb\s+(.*?)\s*\\endverb", re.DOTALL)
_FAMILY = re.compile(r"family=\{((?:[^{}]|\{[^{}]*\})*)\}")
_NAMES = re.compile(r"\\name\{(\w+)\}\{\d+\}\{[^}]*\}\{")


def _group(text: str, start: int, open_: str = "{", close: str = "}") -> tuple[str, int] | None:
    """Return the balanced group starting at text[start] and the index after it."""
    if start >= len(text) or text[start] != open_:
        return None
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return text[start + 1 : i], i + 1
    return None


def _bibitems(text: str) -> Iterator[SourceReference]:
    matches = list(_BIBITEM.finditer(text))
    if not matches:
        return
    starts = [m.end() for m in matches]
    end_bib = _END_BIB.search(text, starts[-1])
    ends = [m.start() for m in matches[1:]] + [end_bib.start() if end_bib else len(text)]
    lines = LineCounter(text)
    for index, (start, end) in enumerate(zip(starts, ends, strict=True), 1):
        line = lines.line_at(start)
        pos, label, key, problems = start, None, None, []
        optional = _group(text, pos, "[", "]")
        if optional:
            label, pos = latex_to_text(optional[0]).strip(), optional[1]
        while pos < end and text[pos].isspace():
            pos += 1
        braced = _group(text, pos)
        if braced and braced[1] <= end:
            key, pos = braced[0].strip(), braced[1]
        else:
            problems.append("bibitem_without_key")
        body_start = pos
        body = text[body_start:end].replace("\\newblock", " ")
        raw = latex_to_text(body)
        yield make_reference(
            index,
            raw,
            label=key or label,
            line=line,
            fields={"printed_label": label} if label else None,
            problems=tuple(problems),
        )


def _biblatex_fields(body: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for m in _FIELD.finditer(body):
        group = _group(body, m.end() - 1)
        if group:
            fields.setdefault(m[1].lower(), latex_to_text(group[0]).strip())
    for m in _VERB.finditer(body):
        fields.setdefault(m[1].lower(), m[2].strip())
    for m in _NAMES.finditer(body):
        group = _group(body, m.end() - 1)
        if group and m[1] == "author":
            surnames = [latex_to_text(f).strip() for f in _FAMILY.findall(group[0])]
            fields["author"] = " and ".join(surnames)
    out = {
        k: fields[k]
        for k in ("title", "author", "year", "volume", "pages", "doi", "url")
        if fields.get(k)
    }
    venue = fields.get("journaltitle") or fields.get("booktitle") or fields.get("publisher")
    if venue:
        out["venue"] = venue
    if fields.get("eprint") and fields.get("eprinttype", "arxiv").lower() == "arxiv":
        out["arxiv"] = fields["eprint"]
    if not out.get("year") and fields.get("date"):
        out["year"] = fields["date"][:4]
    return out


def _entries(text: str) -> Iterator[SourceReference]:
    lines = LineCounter(text)
    for index, m in enumerate(_ENTRY.finditer(text), 1):
        line = lines.line_at(m.start())
        end = text.find("\\endentry", m.end())
        problems: tuple[str, ...] = ()
        if end < 0:
            end, problems = len(text), ("biblatex_entry_not_closed",)
        fields = _biblatex_fields(text[m.end() : end])
        fields["entry_type"] = m[2]
        yield make_reference(
            index, compose_raw(fields), label=m[1], fields=fields, line=line, problems=problems
        )


def read_bbl(text: str) -> Iterator[SourceReference]:
    """Yield the references of a .bbl file in either bibitem or biblatex form."""
    if "\\entry{" in text and "\\endentry" in text:
        yield from _entries(text)
    else:
        yield from _bibitems(text)
