"""BibTeX (.bib) files, read entry by entry so one broken entry never stops the rest."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping

import bibtexparser
from bibtexparser.model import DuplicateBlockKeyBlock, Entry

from curation.references.formats.base import LineCounter, make_reference
from curation.references.formats.bibtex_macros import Macros, close_body, read_value
from curation.references.formats.compose import compose_raw
from curation.references.formats.stated_ids import entry_arxiv_id, entry_doi, plain
from curation.references.latex import latex_to_text
from curation.references.listed import ListedReference

_BLOCK_START = re.compile(r"^[ \t]*@", re.MULTILINE)
_STRING = re.compile(r"^\s*@string\s*([{(])", re.IGNORECASE)
_SKIP = re.compile(r"^\s*@(?:comment|preamble)\b", re.IGNORECASE)
_HEADER = re.compile(r"^\s*@\s*(\w+)\s*[{(]\s*([^,\s]*)", re.DOTALL)
_BATCH = 200  # entries parsed per bibtexparser call: bounded memory, isolated failures
# A value's macros and # joins are read as the e-print reader reads them, within the same
# bounds (bibtexparser would expand a macro each time it is used, and not follow # at all).
BIBTEX_MACROS_BOUNDED = "bibtex_macros_bounded"
_VENUE_FIELDS = ("journal", "booktitle", "school", "institution", "howpublished")
# Fields that quote other works (abstracts cite DOIs) or hold local data, never the entry's id.
_SKIPPED_FIELDS = frozenset({"abstract", "annote", "annotation", "review", "file", "keywords"})
_FIRST_FIELDS = ("doi", "eprint", "url", "ee")

# bibtexparser logs every failed block; the reader reports them per entry instead.
logging.getLogger("bibtexparser").setLevel(logging.ERROR)


def _blocks(text: str) -> Iterator[tuple[int, str]]:
    lines = LineCounter(text)
    start = None
    for m in _BLOCK_START.finditer(text):  # lazily: no list of 20,000 offsets
        if start is not None:
            yield lines.line_at(start), text[start : m.start()]
        start = m.start()
    if start is not None:
        yield lines.line_at(start), text[start:]


def _fields(raw_fields: dict[str, str]) -> dict[str, str]:
    get = {k.lower(): latex_to_text(v).strip() for k, v in raw_fields.items()}
    fields = {
        "title": get.get("title", ""),
        "author": get.get("author", "").replace("\n", " "),
        "year": get.get("year", ""),
        "venue": next((get[k] for k in _VENUE_FIELDS if get.get(k)), ""),
        "volume": get.get("volume", ""),
        "pages": get.get("pages", "").replace("--", "–"),
        "publisher": get.get("publisher", ""),
        "doi": get.get("doi", ""),
        "url": get.get("url", ""),
        # A note is read only when there is no title: "@misc{k, note={Private communication}}"
        # says nothing else, and would otherwise be an empty reference, left out.
        "note": "" if get.get("title") else get.get("note", ""),
    }
    eprint = get.get("eprint", "")
    if eprint and get.get("archiveprefix", "arxiv").lower() == "arxiv":
        fields["arxiv"] = eprint
    return {k: v for k, v in fields.items() if v}


def bib_identifiers(values: Mapping[str, str]) -> tuple[str | None, str | None]:
    """Return the DOI and arXiv id an entry states, from its LaTeX values by lower-cased name:
    its doi and eprint fields first, then any other field that names the entry (url, ee, note)."""
    names = [n for n in _FIRST_FIELDS if n in values]
    names += [n for n in values if n not in _FIRST_FIELDS and n not in _SKIPPED_FIELDS]
    text = plain(" ".join(f"{n} = {values[n]}" for n in names))
    eprints = [values["eprint"]] if values.get("eprint") else []
    return entry_doi(text, values.get("doi")), entry_arxiv_id(text, eprints)


def bib_reference(
    index: int,
    key: str,
    entry_type: str,
    values: Mapping[str, str],
    *,
    line: int | None = None,
    problems: tuple[str, ...] = (),
) -> ListedReference:
    """Return the listed reference of one entry, read once from its LaTeX values (macros
    expanded) by lower-cased name: its text composed from its fields, its stated identifiers."""
    fields = _fields(dict(values))
    fields["entry_type"] = entry_type.lower()
    doi, arxiv_id = bib_identifiers(values)
    return make_reference(
        index, compose_raw(fields), label=key, key=key, line=line, fields=fields,
        problems=problems, doi=doi, arxiv_id=arxiv_id, url=fields.get("url"),
    )  # fmt: skip


def _macros(text: str) -> Macros:
    """Return the file's @string macros, defined in file order, bounded by its size."""
    macros = Macros(len(text))
    for _, block in _blocks(text):
        if m := _STRING.match(block):
            macros.define(block[m.end() : close_body(block, m.end() - 1, m[1]) - 1])
    return macros


def _expanded(value: str, macros: Macros, name: str) -> str:
    return macros.cut(read_value(value, 0, macros)[0].strip(), name)


def read_bib(text: str) -> Iterator[ListedReference]:
    """Yield one reference per BibTeX entry, flagging entries that do not parse and those
    whose @string expansion was bounded (`bibtex_macros_bounded`)."""
    macros = _macros(text)
    index = 0
    batch: list[tuple[int, str]] = []

    def flush() -> Iterator[ListedReference]:
        nonlocal index
        # No middleware: values stay as written (braces, quotes, macros, #) for read_value.
        library = bibtexparser.parse_string("\n".join(b for _, b in batch), parse_stack=[])
        parsed: dict[str, list[Entry]] = {}
        # bibtexparser sets a repeated key aside; a reference list may cite both, keep both.
        duplicates = [
            b.ignore_error_block
            for b in library.failed_blocks
            if isinstance(b, DuplicateBlockKeyBlock) and isinstance(b.ignore_error_block, Entry)
        ]
        entries: list[Entry] = [*library.entries, *duplicates]  # type: ignore[list-item]
        for parsed_entry in sorted(entries, key=lambda e: e.start_line or 0):
            parsed.setdefault(parsed_entry.key, []).append(parsed_entry)
        for line, block in batch:
            header = _HEADER.match(block)
            key = header[2] if header else None
            entry: Entry | None = parsed[key].pop(0) if key and parsed.get(key) else None
            index += 1
            if entry is None:
                problem = "bibtex_entry_unparsable"
                if block.count("{") != block.count("}"):
                    problem = "bibtex_unbalanced_braces"
                yield make_reference(
                    index, block, label=key, key=key, line=line, problems=(problem,)
                )
                continue
            bounded = macros.bounded
            values = {
                k.lower(): _expanded(str(f.value), macros, f"{key}: {k}")
                for k, f in entry.fields_dict.items()
            }
            problems = (BIBTEX_MACROS_BOUNDED,) if macros.bounded > bounded else ()
            yield bib_reference(
                index, entry.key, entry.entry_type, values, line=line, problems=problems
            )
        batch.clear()

    for line, block in _blocks(text):
        if _STRING.match(block) or _SKIP.match(block):
            continue
        batch.append((line, block))
        if len(batch) >= _BATCH:
            yield from flush()
    if batch:
        yield from flush()
