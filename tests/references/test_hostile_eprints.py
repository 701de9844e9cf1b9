"""Tiny hostile e-prints (issue 39, item 3): every scan linear, every expansion bounded, every
reference and every list capped. The hostile sources are built here, never committed.

Linear time is shown by counting operations, not by a clock: the Python lines the reader runs
(sys.settrace) for an input and for one twice as long. A quadratic scan does four times the work
when the input doubles; a linear one twice. Regular expressions run in C, out of the tracer's
sight: those are guarded by an alarm that only a hang trips (as in test_backtracking.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from curation.references.latex_source import ArchiveLimits, bibliography_from_files
from curation.references.latex_source.tex import input_commands
from tests.references.test_backtracking import hang_alarm  # noqa: F401 - the fixture

DOC = "\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n"


def _paper(body: str, **others: str) -> dict[str, bytes]:
    return {
        "main.tex": (DOC % body).encode(),
        **{n.replace("_DOT_", "."): t.encode() for n, t in others.items()},
    }


def lines_run(work: Callable[[], object]) -> int:
    """Return how many lines of citerec's code `work()` runs (library code is not counted)."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if "/curation/" not in frame.f_code.co_filename:
            return None  # not traced inside: the standard library, Django, bibtexparser
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


def assert_linear(build: Callable[[int], dict[str, bytes]], n: int) -> None:
    """Reading an input of size 2n costs about twice what size n costs (quadratic: four times)."""
    small = lines_run(lambda: bibliography_from_files(build(n), name="hostile"))
    large = lines_run(lambda: bibliography_from_files(build(2 * n), name="hostile"))
    assert large < 2.5 * small, f"{small:,} lines for n={n}, {large:,} for 2n: not linear"


@pytest.mark.usefixtures("hang_alarm")
def test_an_input_without_its_closing_brace_is_read_at_once() -> None:
    # 30,000 blanks after "\input{": the old pattern split the run three ways and never ended.
    for command in ("\\input{", "\\include{", "\\import{", "\\subimport{a}{"):
        assert list(input_commands(command + " " * 30_000)) == []
    found = list(input_commands("\\input{ body }\\import{ dir/ }{ part }"))
    assert [(c.target, c.folder) for c in found] == [("body", None), ("part", "dir/")]


def test_unclosed_bibitem_labels_are_scanned_once() -> None:
    # 8,000 "\bibitem[" took 56 s: each looked for its "]" to the end of the text.
    assert_linear(lambda n: _paper("\\begin{thebibliography}{9}" + "\\bibitem[" * n), 300)


def test_comments_around_bibitem_keys_are_scanned_once() -> None:
    # In a .bbl, a key after "\\bibitem[...]%" (acmart) or inside "{%" (apacite) is sought past
    # comments: each item's search stops at the next item, never at the end of the text.
    def bbl(items: str) -> dict[str, bytes]:
        return _paper("\\bibliography{main}", main_DOT_bbl="\\begin{thebibliography}{9}" + items)

    assert_linear(lambda n: bbl("\\bibitem[x]%" + "% c\n" * n + "{%\n" * n), 300)
    assert_linear(lambda n: bbl("\\bibitem[x]% c\n" * n), 300)
    assert_linear(lambda n: bbl("\\bibitem[x]%\n{%\n" * n), 300)  # keys never closed
    assert len(bibliography_from_files(bbl("\\bibitem[x]% c\n" * 3), name="h").entries) == 3


def test_unclosed_citations_are_scanned_once() -> None:
    # 100,000 "\cite{" took 23 s: each looked 4,096 characters ahead for its "}".
    assert_linear(
        lambda n: _paper("\\cite{" * n + "\\bibliography{r}", r_DOT_bib="@article{a, title={T}}"),
        300,
    )


def test_citations_still_read_their_keys_and_notes() -> None:
    files = _paper(
        "\\citep[see][p. 3]{a, b}\\cites(pre)(post)[x]{c}{d}\\cite{ e }\\cite{f\\cite{g}"
        "\\bibliography{r}",
        r_DOT_bib="".join(f"@article{{{k}, title={{T {k}}}}}\n" for k in "abcdefg"),
    )
    assert [e.key for e in bibliography_from_files(files, name="t").entries] == [
        "a", "b", "c", "d", "e", "g",
    ]  # fmt: skip


def _doubling_strings(levels: int) -> str:
    """Return @strings each joining the previous one ten times: 10**levels characters."""
    lines = ['@string{s0="0123456789"}']
    lines += [f"@string{{s{i}=" + "#".join([f"s{i - 1}"] * 10) + "}" for i in range(1, levels)]
    return "\n".join(lines) + f"\n@article{{a, title = s{levels - 1} # {{ end}}, year = 2020}}\n"


def test_self_concatenating_strings_are_bounded() -> None:
    # 330 bytes made one 100-million-character reference; 339 bytes ran out of memory at 3 GB.
    # Nine levels would be 10**9 characters: it is the budget that stops them, at once.
    bib = _doubling_strings(9)
    assert len(bib) < 500
    result = bibliography_from_files(
        _paper("\\nocite{*}\\bibliography{r}", r_DOT_bib=bib), name="t"
    )
    (entry,) = result.entries
    assert entry.key == "a" and "2020" in entry.raw
    assert len(entry.raw) <= 8_192
    assert any("@string macros expand" in w for w in result.warnings), result.warnings


def test_strings_used_as_bibtex_means_them_are_expanded() -> None:
    bib = '@string{aj = "Astron. J."}\n@article{a, journal = aj, title = "T" # "wo", year = 2020}'
    (entry,) = bibliography_from_files(
        _paper("\\cite{a}\\bibliography{r}", r_DOT_bib=bib), name="t"
    ).entries
    assert "Astron. J." in entry.raw and "Two" in entry.raw


def test_one_huge_bibitem_keeps_the_start_of_its_text() -> None:
    # One 49 MiB \bibitem was stored whole (a 206 MB history table); a reference keeps at most
    # CITEREC_MAX_REFERENCE_CHARS, as on every other path. 1 MB shows it.
    body = "\\begin{thebibliography}{9}\\bibitem{big} A. Author, " + "words " * 170_000
    body += "\\bibitem{small} B. Author, A title, 2020.\\end{thebibliography}"
    result = bibliography_from_files(_paper(body), name="t")
    big, small = result.entries
    assert big.raw.startswith("A. Author, words") and len(big.raw) == 8_192
    assert small.raw == "B. Author, A title, 2020."
    assert any("CITEREC_MAX_REFERENCE_CHARS" in w and "1 (big," in w for w in result.warnings), (
        result.warnings
    )


def test_nocite_star_over_a_huge_database_is_capped() -> None:
    # \nocite{*} over a 100,000-entry .bib made 100,000 observations (590 MB worker).
    bib = "".join(f"@article{{k{i}, title={{Title {i}}}, year=2020}}\n" for i in range(300))
    limits = ArchiveLimits(max_references=100)
    files = _paper("\\nocite{*}\\bibliography{r}", r_DOT_bib=bib)
    result = bibliography_from_files(files, name="t", limits=limits)
    assert [e.key for e in result.entries] == [f"k{i}" for i in range(100)]
    assert result.warnings[0] == (
        "the bibliography lists 300 references: only the first 100 are read, "
        "the limit of 100 (CITEREC_MAX_SOURCE_REFERENCES)"
    )


def test_the_reference_cap_holds_for_bibitems_too() -> None:
    items = "".join(f"\\bibitem{{k{i}}} Author {i}, Title, 2020.\n" for i in range(30))
    files = _paper(f"\\begin{{thebibliography}}{{9}}{items}\\end{{thebibliography}}")
    result = bibliography_from_files(files, name="t", limits=ArchiveLimits(max_references=10))
    assert len(result.entries) == 10 and "lists 30 references" in result.warnings[0]


def _biber_bbl(body: str) -> str:
    """Return a biber .bbl whose one entry (with a DOI) holds `body`."""
    return (
        "\\refsection{0}\n  \\datalist[entry]{nty/global//global/global}\n"
        "    \\entry{a}{article}{}\n      \\field{title}{First}\n"
        f"      \\verb{{doi}}\n      \\verb 10.1000/xyz\n      \\endverb\n{body}\n"
        "    \\endentry\n  \\enddatalist\n\\endrefsection\n"
    )


def _biber_paper(body: str) -> dict[str, bytes]:
    return _paper("\\cite{a}\\printbibliography", main_DOT_bbl=_biber_bbl(body))


@pytest.mark.usefixtures("hang_alarm")
def test_unclosed_verb_file_blocks_are_scanned_once() -> None:
    # 20,000 "\verb{file}" without their \endverb took 35 s (each looked to the entry's end);
    # 60,000 would take minutes. Read at once, the entry keeps its DOI.
    (entry,) = bibliography_from_files(_biber_paper("\\verb{file}" * 60_000), name="t").entries
    assert entry.doi == "10.1000/xyz"
    assert_linear(lambda n: _biber_paper("\\verb{file}" * n), 300)
    assert_linear(lambda n: _biber_paper("\\verb{file}\n\\verb /a/b.pdf\n\\endverb\n" * n), 300)


def test_file_blocks_are_left_out_of_the_entry_text() -> None:
    block = "\\verb{file}\n\\verb /home/me/10.9999/not-the-doi.pdf\n\\endverb\n"
    (entry,) = bibliography_from_files(_biber_paper(block * 3), name="t").entries
    assert entry.doi == "10.1000/xyz" and "not-the-doi" not in entry.raw


def test_unclosed_biber_entries_are_scanned_once() -> None:
    # Each \entry without its \endentry ran to the end of the list: 8,000 of them made 670 MB of
    # entry bodies to read. An entry ends at the next one at the latest.
    def build(n: int) -> dict[str, bytes]:
        entries = "".join(
            f"\\entry{{k{i}}}{{article}}{{}}\n\\field{{title}}{{T {i}}}\n" for i in range(n)
        )
        entries += "\\entry{last}{article}{}\n\\endentry\n"  # one closed: read as biber's
        bbl = f"\\refsection{{0}}\n\\datalist[entry]{{nty/global//global/global}}\n{entries}"
        return _paper("\\cite{k0}\\printbibliography", main_DOT_bbl=bbl + "\\enddatalist\n")

    assert_linear(build, 300)
    result = bibliography_from_files(build(3), name="t")
    assert [e.key for e in result.entries] == ["k0", "k1", "k2", "last"]
    assert "T 1" in result.entries[1].raw and "T 2" not in result.entries[1].raw
