"""Source reader defects found on real trees (issue 42 item 2): each as TeX would read it."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from curation.references.formats.bib import read_bib
from curation.references.latex_source import bibliography_from_eprint, bibliography_from_files
from curation.references.latex_source.tex import decode, wide_encoding

MAIN = "\\documentclass{article}\n\\begin{document}\n\\cite{a,b,c}\n\\bibliography{refs}\n\\end{document}\n"


def _bbl(body: str) -> dict[str, bytes]:
    text = "\\begin{thebibliography}{9}\n" + body + "\\end{thebibliography}\n"
    return {"main.tex": MAIN.encode(), "main.bbl": text.encode()}


def test_acmart_key_on_the_line_after_a_comment_is_the_key() -> None:
    # acmart's bibliography style: "\bibitem[label]%", the key on the next line, indented.
    files = _bbl(
        "\\bibitem[Smith(2020)]%\n        {smith20}\n"
        "\\bibfield{author}{Smith, J.} 2020. A great title. \\emph{Journal} 1, 2.\n"
        "\\bibitem[Doe(2021)]%\n  {doe21}\nDoe, J. 2021. Other title. Journal 2, 3.\n"
    )
    entries = bibliography_from_files(files, name="t").entries
    assert [e.key for e in entries] == ["smith20", "doe21"]
    assert entries[0].raw == "Smith, J. 2020. A great title. Journal 1, 2."


def test_apacite_key_after_a_comment_inside_its_braces_loses_the_comment() -> None:
    files = _bbl("\\bibitem[Doe(2021)]{%\nDoe2021}\nDoe, J. (2021). Title. Journal.\n")
    entries = bibliography_from_files(files, name="t").entries
    assert [e.key for e in entries] == ["Doe2021"]
    assert entries[0].raw == "Doe, J. (2021). Title. Journal."


def test_an_escaped_percent_before_the_key_is_not_a_comment() -> None:
    files = _bbl("\\bibitem{k} 50\\% of all. Title, 2020.\n")
    assert bibliography_from_files(files, name="t").entries[0].raw == "50% of all. Title, 2020."


BIB = (
    "@misc{a, title={}, note={Private communication with J. Smith}}\n"
    "@article{b, title={Second}, author={Doe, J.}, journal={J}, year=2021}\n"
    "@article{c, title={Third}, author={Roe, J.}, journal={J}, year=2022, note={In press}}\n"
)


def test_a_misc_entry_with_only_a_note_is_read_by_its_note() -> None:
    entries = bibliography_from_files(
        {"main.tex": MAIN.encode(), "refs.bib": BIB.encode()}, name="t"
    ).entries
    assert [(e.key, e.raw) for e in entries] == [
        ("a", "Private communication with J. Smith"),
        ("b", "Doe, J. 2021. Second. J."),
        ("c", "Roe, J. 2022. Third. J."),  # a titled entry's note stays out of its text
    ]
    assert [r.raw for r in read_bib(BIB)][0] == "Private communication with J. Smith"


def test_an_entry_with_no_text_is_named_in_a_warning() -> None:
    bib = "@misc{a, title={}}\n@article{b, title={Second}, author={Doe, J.}, year=2021}\n"
    result = bibliography_from_files(
        {"main.tex": MAIN.encode(), "refs.bib": bib.encode()}, name="t"
    )
    assert [e.raw for e in result.entries] == ["", "Doe, J. 2021. Second."]
    assert any("have no text and are left out: 1 (a)" in w for w in result.warnings)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_wide_encoded_tex_file_is_read(encoding: str) -> None:
    tex = MAIN.replace(
        "\\bibliography{refs}",
        "\\begin{thebibliography}{1}\\bibitem{a} A. Autor, Über alles, 2020.\\end{thebibliography}",
    )
    data = tex.encode(encoding)
    assert wide_encoding(data[:512]) is not None
    assert decode(data) == tex
    result = bibliography_from_files({"main.tex": data}, name="t")
    assert [(e.key, e.raw) for e in result.entries] == [("a", "A. Autor, Über alles, 2020.")]
    # A one-file e-print (gzip'd TeX) in UTF-16 is text, not "neither a tar nor TeX".
    eprint = bibliography_from_eprint(gzip.compress(data), name="t")
    assert [e.key for e in eprint.entries] == ["a"]


def test_a_wide_encoded_tex_file_in_a_tar_is_read() -> None:
    tex = MAIN.replace(
        "\\bibliography{refs}",
        "\\begin{thebibliography}{1}\\bibitem{a} Title.\\end{thebibliography}",
    )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = tex.encode("utf-16")
        info = tarfile.TarInfo("main.tex")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert [e.key for e in bibliography_from_eprint(buffer.getvalue(), name="t").entries] == ["a"]


def test_latin1_and_ascii_are_not_taken_for_wide_text() -> None:
    assert wide_encoding(MAIN.encode()) is None
    assert wide_encoding("Müller, Straße".encode("latin-1") * 10) is None


def test_escape_bell_and_delete_are_not_kept_in_the_text() -> None:
    files = _bbl("\\bibitem{a} A. Author, Ti\x1btle \x07x\x7fy, 2020.\n")
    bib = "@article{b, title={Th\x1bird \x07x\x7fy}, author={Roe, J.}, year=2022}\n"
    raws = [e.raw for e in bibliography_from_files(files, name="t").entries]
    raws += [
        e.raw
        for e in bibliography_from_files(
            {"main.tex": MAIN.encode(), "refs.bib": bib.encode()}, name="t"
        ).entries
    ]
    assert raws and all(not any(c in r for c in "\x1b\x07\x7f") for r in raws)
    assert raws[0] == "A. Author, Ti tle x y, 2020."
