"""LaTeX bibliographies (.bbl): thebibliography with \\bibitem (plain and natbib) and biblatex."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from curation.references.formats.base import LineCounter, make_reference
from curation.references.formats.compose import compose_raw
from curation.references.formats.stated_ids import entry_arxiv_id, entry_doi, plain
from curation.references.latex import latex_to_text
from curation.references.listed import ListedReference

# \bibitemStop / \bibitemNoStop (REVTeX) are not items.
_BIBITEM = re.compile(r"\\bibitem(?![A-Za-z@])\s*")
_BEGIN_BIB = re.compile(r"\\begin\s*\{thebibliography\}")
_END_BIB = re.compile(r"\\end\s*\{thebibliography\}")
_ENTRY = re.compile(r"\\entry\{([^}]*)\}\{([^}]*)\}")
_FIELD = re.compile(r"\\(?:field|list)\{(\w+)\}(?:\{\d+\})?\{")  # \list{name}{count}{items}
_VERB = re.compile(r"\\verb\{(\w+)\}\s*\\verb\s(.*?)\s*\\endverb", re.DOTALL)
_VERB_CONTINUED = re.compile(r"\s*\n\s*\\verb\s")  # biber wraps long values over \verb lines
_VERB_ESCAPE = re.compile(r"\\([_%#&])")  # "\&" copied from a .bib URL means "&"
_FAMILY = re.compile(r"family=\{((?:[^{}]|\{[^{}]*\})*)\}")
_NAMES = re.compile(r"\\name\{(\w+)\}\{\d+\}\{[^}]*\}\{")
# A name in the old (biblatex 1.x) form: {{opts}{Family}{F.}{Given}{G.}...}.
_OLD_FAMILY = re.compile(r"\{\{[^{}]*\}%?\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
# A "%" ending a line is a TeX comment (BibTeX and REVTeX end lines so); one inside a line
# is a URL escape and stays.
_LINE_END_COMMENT = re.compile(r"(?<!\\)%[ \t]*\r?\n[ \t]*")
# Around and inside a \bibitem's key, a "%" is always a comment: TeX drops it with its line
# end and the next line's leading blanks (acmart writes "\bibitem[...]%", the key on the next
# line; apacite writes "{%", a line end, then "key}").
_COMMENT = re.compile(r"(?<!\\)%[^\n]*(?:\n[ \t]*)?")
_REFSECTION_0 = re.compile(r"\\refsection\{0\}")
_SORTING_LIST = re.compile(r"\\(datalist|sortlist)\b[^\n]*")
_URL_COMMAND = re.compile(r"\\(?:url|href)\s*\{([^{}]+)\}")
_BIBLATEX_SKIPPED = re.compile(
    r"\\field\{(?:abstract|annotation|annote|review)\}\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
)
# A \verb{file} block runs to its \endverb. Sought with a lazy pattern, each unclosed
# \verb{file} looked to the end of the entry (20,000 of them took 35 s): it is sought once here.
_VERB_FILE, _END_VERB = "\\verb{file}", "\\endverb"


@dataclass(frozen=True, slots=True)
class BblItem:
    """One item of a .bbl as LaTeX: its key, printed label or entry type, and body."""

    key: str | None
    label: str | None
    body: str
    start: int
    closed: bool = True


def _group(
    text: str, start: int, open_: str = "{", close: str = "}", end: int | None = None
) -> tuple[str, int] | None:
    """Return the balanced group starting at text[start] and the index after it, if it closes
    before `end` (the end of the text by default).

    Inside a bracket group, brace groups are skipped whole: `[{Smith [2004]}]` is one group.
    """
    stop = len(text) if end is None else min(end, len(text))
    if start >= stop or text[start] != open_:
        return None
    depth = braces = 0
    for i in range(start, stop):
        char = text[i]
        if open_ != "{" and char in "{}":
            braces += 1 if char == "{" else -1
        elif braces > 0:
            continue
        elif char == open_:
            depth += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return text[start + 1 : i], i + 1
    return None


def _bibliography_spans(text: str) -> list[tuple[int, int]]:
    """Return the (start, end) of each thebibliography environment, or the whole text."""
    spans: list[tuple[int, int]] = []
    for begin in _BEGIN_BIB.finditer(text):
        if spans and begin.start() < spans[-1][1]:
            continue
        end = _END_BIB.search(text, begin.end())
        spans.append((begin.end(), end.start() if end else len(text)))
    return spans or [(0, len(text))]


def bibitems(text: str) -> Iterator[BblItem]:
    """Yield the \\bibitem items of thebibliography environments (or of the text) in order."""
    for span_start, span_end in _bibliography_spans(text):
        matches = list(_BIBITEM.finditer(text, span_start, span_end))
        if not matches:
            continue
        ends = [m.start() for m in matches[1:]] + [span_end]
        for match, end in zip(matches, ends, strict=True):
            pos, label, key = match.end(), None, None
            # A group is looked for up to the next item only: 8,000 unclosed "\bibitem[" each
            # scanning to the end of the text took 56 s.
            optional = _group(text, pos, "[", "]", end)
            if optional:
                label, pos = optional[0], optional[1]
            pos = _past_blanks_and_comments(text, pos, end)
            braced = _group(text, pos, end=end)
            if braced:
                key, pos = _COMMENT.sub("", braced[0]).strip(), braced[1]
            body = _LINE_END_COMMENT.sub("", text[pos:end])
            yield BblItem(key or None, label, body, match.start())


def _past_blanks_and_comments(text: str, pos: int, end: int) -> int:
    """Return the first position from `pos` that is neither a blank nor in a TeX comment."""
    while pos < end:
        if text[pos].isspace():
            pos += 1
        elif text[pos] == "%":
            line_end = text.find("\n", pos, end)
            pos = end if line_end < 0 else line_end + 1
        else:
            break
    return pos


def _main_list(text: str) -> tuple[int, int]:
    """Return where the first sorting list of \\refsection{0} (what \\printbibliography
    prints) starts and ends; the whole section or text when it has no list."""
    section = _REFSECTION_0.search(text)
    start = section.end() if section else 0
    end = text.find("\\endrefsection", start)
    end = len(text) if end < 0 else end
    listed = _SORTING_LIST.search(text, start, end)
    if listed is None:
        return start, end
    close = text.find(f"\\end{listed[1]}", listed.end(), end)
    return listed.end(), end if close < 0 else close


def biblatex_entries(text: str) -> Iterator[BblItem]:
    """Yield the \\entry items of a biber .bbl's main list (label = entry type).

    An entry without its \\endentry ends at the next \\entry: sought to the end of the list,
    each of 8,000 unclosed entries was read whole to the end (670 MB of bodies).
    """
    start, end = _main_list(text)
    entries = _ENTRY.finditer(text, start, end)
    m = next(entries, None)
    while m is not None:
        following = next(entries, None)
        limit = following.start() if following else end
        stop = text.find("\\endentry", m.end(), limit)
        closed = stop >= 0
        yield BblItem(m[1], m[2], text[m.end() : stop if closed else limit], m.start(), closed)
        m = following


def bibitem_reference(
    index: int, item: BblItem, *, body: str | None = None, line: int | None = None
) -> ListedReference:
    """Return the listed reference of a \\bibitem (its LaTeX `body`, when cut, given apart):
    its text, and the DOI, arXiv id and URL its LaTeX holds, printed or not."""
    body = item.body if body is None else body
    label = latex_to_text(item.label).strip() if item.label is not None else None
    text = plain(body)
    url = _URL_COMMAND.search(body)
    return make_reference(
        index,
        bibitem_text(body),
        label=item.key or label,
        key=item.key,
        line=line,
        fields={"printed_label": label} if label else None,
        problems=() if item.key else ("bibitem_without_key",),
        doi=entry_doi(text),
        arxiv_id=entry_arxiv_id(text),
        url=url[1].strip() if url else None,
    )


def _bibitem_references(text: str) -> Iterator[ListedReference]:
    lines = LineCounter(text)
    for index, item in enumerate(bibitems(text), 1):
        yield bibitem_reference(index, item, line=lines.line_at(item.start))


def bibitem_text(body: str) -> str:
    """Return the reader's text of a \\bibitem body."""
    return latex_to_text(body.replace("\\newblock", " "))


def _names(group: str) -> list[str]:
    found = _FAMILY.findall(group) or _OLD_FAMILY.findall(group)
    return [latex_to_text(f).strip() for f in found]


def biblatex_fields(body: str) -> dict[str, str]:
    """Return the fields of a biblatex \\entry body, as compose_raw takes them."""
    fields: dict[str, str] = {}
    body = _LINE_END_COMMENT.sub("", body)
    for m in _FIELD.finditer(body):
        group = _group(body, m.end() - 1)
        if group:
            fields.setdefault(m[1].lower(), latex_to_text(group[0]).strip())
    for m in _VERB.finditer(body):
        value = _VERB_CONTINUED.sub("", m[2]).strip()
        fields.setdefault(m[1].lower(), _VERB_ESCAPE.sub(r"\1", value))
    for m in _NAMES.finditer(body):
        group = _group(body, m.end() - 1)
        if group and m[1] == "author":
            fields["author"] = " and ".join(_names(group[0]))
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


def _without_file_blocks(body: str) -> str:
    """Return a biber entry without its \\verb{file} … \\endverb blocks (local paths, never
    the entry's id), in one pass: once a block finds no \\endverb, no later one can."""
    pieces: list[str] = []
    pos = 0
    while (start := body.find(_VERB_FILE, pos)) >= 0:
        end = body.find(_END_VERB, start + len(_VERB_FILE))
        if end < 0:
            break
        pieces += (body[pos:start], " ")
        pos = end + len(_END_VERB)
    pieces.append(body[pos:])
    return "".join(pieces)


def biblatex_reference(index: int, item: BblItem, *, line: int | None = None) -> ListedReference:
    """Return the listed reference of a biblatex \\entry: its text composed from its fields,
    and the DOI and arXiv id it states (its doi and eprint fields, else its other fields)."""
    fields = biblatex_fields(item.body)
    text = plain(_BIBLATEX_SKIPPED.sub(" ", _without_file_blocks(item.body)))
    eprints = [fields["arxiv"]] if fields.get("arxiv") else []
    fields["entry_type"] = item.label or ""
    return make_reference(
        index,
        compose_raw(fields),
        label=item.key,
        key=item.key,
        fields=fields,
        line=line,
        problems=() if item.closed else ("biblatex_entry_not_closed",),
        doi=entry_doi(text, fields.get("doi")),
        arxiv_id=entry_arxiv_id(text, eprints),
        url=fields.get("url"),
    )


def _entry_references(text: str) -> Iterator[ListedReference]:
    lines = LineCounter(text)
    for index, item in enumerate(biblatex_entries(text), 1):
        yield biblatex_reference(index, item, line=lines.line_at(item.start))


def read_bbl(text: str) -> Iterator[ListedReference]:
    """Yield the references of a .bbl file in either bibitem or biblatex form."""
    if "\\entry{" in text and "\\endentry" in text:
        yield from _entry_references(text)
    else:
        yield from _bibitem_references(text)
