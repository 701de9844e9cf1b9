"""The bibliography a compiled paper prints, read from its LaTeX source tree."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar

from curation.references.formats.bbl import (
    BblItem,
    bibitem_reference,
    bibitems,
    biblatex_entries,
    biblatex_reference,
)
from curation.references.formats.bib import bib_reference
from curation.references.latex_source.archive import (
    SETTINGS,
    ArchiveLimits,
    limit_text,
    read_eprint,
)
from curation.references.latex_source.bibfile import BibEntry, read_database
from curation.references.latex_source.cites import ALL_ENTRIES, cite_keys
from curation.references.latex_source.tex import (
    TEX_SUFFIXES,
    TexTree,
    choose_main,
    clean,
    decode,
    read_tree,
)
from curation.references.listed import ListedReference

METHODS = ("bbl-bibitem", "bbl-biblatex", "bib+cites", "inline-bibitem", "none")
MIN_CROSSREFS = 2  # BibTeX's and biber's default: a parent named this often is listed too
_BIB_COMMAND = re.compile(
    r"\\(?:bibliography|nobibliography|addbibresource|addglobalbib|addsectionbib)"
    r"(?![A-Za-z@])\s*(?:\[[^\]]*\]\s*)?\{([^{}]*)\}"
)
_USES_BBL = re.compile(r"\\(?:bibliography|printbibliography|addbibresource)(?![A-Za-z@])")
_THEBIBLIOGRAPHY = re.compile(r"\\begin\s*\{thebibliography\}")
_MISSING_SHOWN = 10
# A \bibitem's LaTeX is cut to this many times the reference cap before it is read as text
# (its text is shorter than its LaTeX): one 49 MiB item is never converted whole.
_LATEX_PER_CHAR = 8
_T = TypeVar("_T")


@dataclass(frozen=True)
class SourceBibliography:
    """A paper's reference list as its source produces it, and how it was found."""

    entries: list[ListedReference]  # labelled by their cite keys only
    method: str  # one of METHODS
    main_tex: str | None
    files_read: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _Listing:
    """The limits on one bibliography, and the warnings they gave."""

    def __init__(self, limits: ArchiveLimits, warnings: list[str]) -> None:
        self.limits, self.warnings = limits, warnings
        self.cut: list[str] = []
        self.empty: list[str] = []

    def first(self, items: Iterable[_T]) -> Iterator[_T]:
        """Yield the first `max_references` items; count the rest and say so (read past)."""
        count = 0
        for item in items:
            count += 1
            if count <= self.limits.max_references:
                yield item
        if count > self.limits.max_references:
            self.warnings.insert(
                0,
                f"the bibliography lists {count:,} references: only the first "
                f"{self.limits.max_references:,} are read, "
                f"{limit_text(self.limits, 'max_references')}",
            )

    def latex(self, body: str) -> str:
        """Return a reference's LaTeX, cut far past what its text may keep."""
        return body[: _LATEX_PER_CHAR * self.limits.max_reference_chars]

    def entry(self, index: int, reference: ListedReference, length: int | None = None) -> ListedReference:
        """Return the reference numbered `index`, labelled by its cite key, its text cut to the
        reference cap (`length`: its LaTeX's, when that was cut first)."""
        key, raw = reference.key, reference.raw  # the reader dropped control characters
        if not raw:
            self.empty.append(f"{index} ({key or 'no key'})")
        cap = self.limits.max_reference_chars
        if len(raw) > cap or (length or 0) > _LATEX_PER_CHAR * cap:
            self.cut.append(f"{index} ({key or 'no key'}, {max(len(raw), length or 0):,})")
            raw = raw[:cap]
        # Labelled by its key alone: a printed label never numbers a source's list.
        return replace(reference, index=index, raw=raw, label=key)

    def say_cut(self) -> None:
        """Add one warning naming the references whose text was cut, and one naming those
        with no text at all (left out of the import), the first ten of each."""
        if self.cut:
            self.warnings.insert(
                0,
                f"{len(self.cut)} reference(s) longer than the limit of "
                f"{self.limits.max_reference_chars:,} characters "
                f"({SETTINGS['max_reference_chars']}) keep their start: {_shown(self.cut)}",
            )
        if self.empty:
            self.warnings.insert(
                0,
                f"{len(self.empty)} reference(s) have no text and are left out: "
                f"{_shown(self.empty)}",
            )


def _shown(items: list[str]) -> str:
    """Return the first ten items, comma-separated, with "…" when there are more."""
    return ", ".join(items[:_MISSING_SHOWN]) + (" …" if len(items) > _MISSING_SHOWN else "")


def _from_bibitems(items: Iterator[BblItem], listing: _Listing) -> list[ListedReference]:
    entries: list[ListedReference] = []
    for item in listing.first(items):
        index = len(entries) + 1
        reference = bibitem_reference(index, item, body=listing.latex(item.body))
        entries.append(listing.entry(index, reference, len(item.body)))
    return entries


def _from_biblatex(bbl: str, listing: _Listing) -> list[ListedReference]:
    entries: list[ListedReference] = []
    for item in listing.first(biblatex_entries(bbl)):
        index = len(entries) + 1
        entries.append(listing.entry(index, biblatex_reference(index, item)))
    return entries


def _bib_files(tree: TexTree, files: Mapping[str, bytes], warnings: list[str]) -> list[str]:
    """Return the .bib files the tree names, resolved as BibTeX/biber would (main file's folder)."""
    root = posixpath.dirname(tree.main)
    found: list[str] = []
    for m in _BIB_COMMAND.finditer(tree.text):
        for name in (n.strip() for n in m[1].split(",")):
            if not name:
                continue
            wanted = name if name.lower().endswith(".bib") else name + ".bib"
            path = next(
                (
                    p
                    for p in (
                        posixpath.normpath(posixpath.join(root, wanted)),
                        posixpath.normpath(wanted),
                    )
                    if p in files
                ),
                None,
            )
            if path is None:  # BIBINPUTS-style setups: a unique file of that name elsewhere
                same = [p for p in files if posixpath.basename(p) == posixpath.basename(wanted)]
                path = same[0] if len(same) == 1 else None
                if path:
                    warnings.append(f"{wanted}: not beside the main file; read {path}")
            if path is None:
                warnings.append(f"{wanted}: named by the source but not in the archive")
            elif path not in found:
                found.append(path)
    return found


def _cited_entries(
    keys: Iterator[str], database: list[BibEntry], warnings: list[str]
) -> list[BibEntry]:
    """Return the database entries the keys cite, in first-citation order, as BibTeX lists them."""
    by_folded: dict[str, BibEntry] = {}
    for entry in database:
        # A repeated key, even in another case, is one entry: BibTeX and biber keep the first.
        by_folded.setdefault(entry.key.lower(), entry)
    listed: dict[str, BibEntry] = {}
    missing: list[str] = []
    for key in keys:
        if key == ALL_ENTRIES:
            for folded, entry in by_folded.items():
                listed.setdefault(folded, entry)
            continue
        found = by_folded.get(key.lower())
        if found is None:
            if key not in missing:
                missing.append(key)
            continue
        if found.key != key and found.key.lower() not in listed:
            warnings.append(f"cite key {key!r} matches .bib key {found.key!r} only ignoring case")
        listed.setdefault(found.key.lower(), found)
    if missing:
        warnings.append(
            f"{len(missing)} cited key(s) not in the .bib files (printed as ?): {_shown(missing)}"
        )
    parents: dict[str, int] = {}
    for entry in listed.values():
        parent = entry.fields.get("crossref", "").strip().lower()
        if parent:
            parents[parent] = parents.get(parent, 0) + 1
    for parent, count in parents.items():
        if count >= MIN_CROSSREFS and parent in by_folded and parent not in listed:
            listed[parent] = by_folded[parent]
    return list(listed.values())


def _from_bib(entries: list[BibEntry], listing: _Listing) -> list[ListedReference]:
    # Each cited entry is read once, from the values the database reader found: its text, fields
    # and identifiers belong to it, whatever another entry holds.
    out: list[ListedReference] = []
    for entry in entries:
        index = len(out) + 1
        reference = bib_reference(index, entry.key, entry.entry_type, entry.fields)
        out.append(listing.entry(index, reference))
    return out


def _bbl_path(tree: TexTree, files: Mapping[str, bytes]) -> str | None:
    """Return the .bbl the tree reads: the main file's name with .bbl, or one it \\inputs."""
    own = posixpath.splitext(tree.main)[0] + ".bbl"
    if own in files:
        return own
    return next((p for p in tree.files_read if p.lower().endswith(".bbl")), None)


def bibliography_from_files(
    files: Mapping[str, bytes],
    *,
    name: str,
    limits: ArchiveLimits = ArchiveLimits(),  # noqa: B008 (frozen: one shared default is safe)
) -> SourceBibliography:
    """Return the bibliography of a source tree given as archive path -> bytes, its entries
    and their texts capped by `limits` (what was cut is said in its warnings)."""
    sources = {
        path: clean(decode(data))
        for path, data in files.items()
        if path.lower().endswith((*TEX_SUFFIXES, ".bbl"))
    }
    bbl_stems = {posixpath.splitext(p)[0] for p in files if p.lower().endswith(".bbl")}
    tex = {p: t for p, t in sources.items() if not p.lower().endswith(".bbl")}
    main = choose_main(tex, bbl_stems)
    if main is None:
        return SourceBibliography(
            [], "none", None, [], [f"{name}: no TeX file with \\documentclass"]
        )
    tree = read_tree(main, sources)
    warnings = list(tree.warnings)
    listing = _Listing(limits, warnings)
    read = list(tree.files_read)
    inline = bool(_THEBIBLIOGRAPHY.search(tree.text))
    bbl = _bbl_path(tree, files)
    if bbl and bbl in tree.files_read:
        inline = False  # the tree \inputs its .bbl: that is where the list comes from
    if bbl and not (inline and not _USES_BBL.search(tree.text)):
        text = decode(files[bbl])
        if bbl not in read:
            read.append(bbl)
        if "\\entry{" in text and "\\endentry" in text:
            entries = _from_biblatex(text, listing)
            return _listed(entries, "bbl-biblatex", main, read, listing)
        return _listed(_from_bibitems(bibitems(text), listing), "bbl-bibitem", main, read, listing)
    bib_paths = _bib_files(tree, files, warnings)
    if bib_paths and not inline:
        database = [e for p in bib_paths for e in read_database(decode(files[p]), warnings)]
        cited = list(listing.first(_cited_entries(cite_keys(tree.text), database, warnings)))
        return _listed(_from_bib(cited, listing), "bib+cites", main, read + bib_paths, listing)
    if inline:
        entries = _from_bibitems(bibitems(tree.text), listing)
        return _listed(entries, "inline-bibitem", main, read, listing)
    warnings.append(f"{name}: {main} has no bibliography (.bbl, .bib or thebibliography)")
    return SourceBibliography([], "none", main, read, warnings)


def _listed(
    entries: list[ListedReference], method: str, main: str, read: list[str], listing: _Listing
) -> SourceBibliography:
    listing.say_cut()
    return SourceBibliography(entries, method, main, read, listing.warnings)


def bibliography_from_eprint(
    data: bytes,
    *,
    name: str,
    limits: ArchiveLimits = ArchiveLimits(),  # noqa: B008 (frozen: one shared default is safe)
) -> SourceBibliography:
    """Return the bibliography of an arXiv e-print; raise SourceArchiveError (PdfOnlySource for
    a PDF-only paper) when the e-print cannot be read safely."""
    files = read_eprint(data, name=name, limits=limits)
    return bibliography_from_files(files, name=name, limits=limits)
