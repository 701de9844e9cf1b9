"""Reading a bibliography out of a LaTeX source tree: main file, TeX reading, each list kind."""

from __future__ import annotations

import pytest

from curation.references.latex_source import bibliography_from_files
from curation.references.latex_source.cites import first_cited
from curation.references.latex_source.tex import choose_main, clean, read_tree

DOC = "\\documentclass{article}\n\\begin{document}\n"
END = "\\end{document}\n"


def _files(**texts: str) -> dict[str, bytes]:
    return {
        name.replace("__", "/").replace("_DOT_", "."): text.encode() for name, text in texts.items()
    }


def _keys(files: dict[str, bytes]) -> list[str | None]:
    return [e.key for e in bibliography_from_files(files, name="test").entries]


# --- main file --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sources", "main"),
    [
        ({"main.tex": DOC + END, "paper.tex": DOC + "\\bibliography{r}" + END}, "paper.tex"),
        (
            {"main.tex": DOC + "\\input{body}" + END, "body.tex": DOC + "\\cite{a}" + END},
            "main.tex",
        ),
        (
            {
                "a.tex": "\\documentclass{x}\\bibliography{r}",
                "b.tex": DOC + "\\bibliography{r}" + END,
            },
            "b.tex",
        ),
        ({"ms.tex": DOC + "\\cite{a}" + END, "zz.tex": DOC + "\\cite{a}\\cite{b}" + END}, "zz.tex"),
        ({"x/ms.tex": DOC + END, "ms.tex": DOC + END}, "ms.tex"),
        ({"notes.tex": "no class here", "body.tex": "\\section{A}"}, None),
    ],
)
def test_choose_main(sources: dict[str, str], main: str | None) -> None:
    assert choose_main({p: clean(t) for p, t in sources.items()}) == main


def test_choose_main_prefers_the_file_named_after_the_bbl() -> None:
    sources = {"a.tex": DOC + "\\cite{k}" + END, "b.tex": DOC + "\\cite{k}" + END}
    assert choose_main(sources, {"b"}) == "b.tex"


# --- reading TeX ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "kept"),
    [
        ("a % \\cite{x}\nb", "a b"),
        ("50\\% \\cite{y}", "50\\% \\cite{y}"),
        ("a\\\\% gone\nb", "a\\\\b"),
        ("a\\begin{comment}\\cite{x}\\end{comment}b", "ab"),
        ("a\\iffalse\\cite{x}\\fi b", "a b"),
        ("a\\iffalse\\ifx\\y\\z\\cite{x}\\fi\\cite{x}\\fi b", "a b"),
        ("a\\iffalse x\\else\\cite{y}\\fi b", "a\\cite{y} b"),
        ("\\let\\ifdraft\\iffalse a\\cite{y}", "\\let\\ifdraft\\iffalse a\\cite{y}"),
        ("\\iffalse\\ifthenelse{1}{2}{3}\\fi a", " a"),
        ("a\\endinput\n\\cite{x}", "a\\endinput"),
    ],
)
def test_clean_reads_tex_as_tex_does(tex: str, kept: str) -> None:
    assert clean(tex) == kept


def test_inputs_are_followed_from_the_main_folder_depth_first_once() -> None:
    sources = {
        "paper/main.tex": DOC + "A\\input{sec/one}B\\include{sec/two}C\\input sec/one.tex\n" + END,
        "paper/sec/one.tex": "1\\input{sec/three.tex}",
        "paper/sec/two.tex": "2\\input{paper/main}",  # a cycle: read once
        "paper/sec/three.tex": "3",
        "paper/sec/four.tex": "\\input{four}",
    }
    tree = read_tree("paper/main.tex", {p: clean(t) for p, t in sources.items()})
    assert tree.files_read == [
        "paper/main.tex",
        "paper/sec/one.tex",
        "paper/sec/three.tex",
        "paper/sec/two.tex",
    ]
    assert [c for c in tree.text if c in "ABC123"] == list("A13B2C")


def test_import_reads_relative_to_the_imported_folder() -> None:
    sources = {
        "main.tex": DOC + "\\import{parts/}{intro}" + END,
        "parts/intro.tex": "I\\input{detail}",
        "parts/detail.tex": "D",
    }
    tree = read_tree("main.tex", sources)
    assert tree.files_read == ["main.tex", "parts/intro.tex", "parts/detail.tex"]


def test_text_after_end_document_is_not_read() -> None:
    tree = read_tree("m.tex", {"m.tex": DOC + "\\cite{a}" + END + "\\cite{b}"})
    assert first_cited(tree.text) == ["a"]


# --- citations --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "keys"),
    [
        ("\\cite{a, b}\\citep[see][p.~2]{c}\\citet*{a,d}", ["a", "b", "c", "d"]),
        ("\\Citet{x}\\citeauthor{y}\\citeyearpar{z}\\onlinecite{w}", ["x", "y", "z", "w"]),
        (
            "\\parencite[{a [b]}]{k1}\\textcite{k2}\\autocite{k3}\\footcite{k4}\\supercite{k5}",
            ["k1", "k2", "k3", "k4", "k5"],
        ),
        ("\\cites(pre)(post)[a][b]{x}[c]{y,z} {not a key}", ["x", "y", "z", "not a key"]),
        ("\\cites{x}\nand text", ["x"]),
        ("\\cite{a,*b}\\nocite{c}", ["a", "b", "c"]),
        ("\\citetext{x}\\citename{y}\\cite {spaced}", ["spaced"]),
        (
            "\\fullcite{f}\\citetitle{t}\\smartcite{s}\\citenum{n}\\citealp{p}\\citealt{q}",
            ["f", "t", "s", "n", "p", "q"],
        ),
    ],
)
def test_cited_keys(tex: str, keys: list[str]) -> None:
    assert first_cited(tex) == keys


# --- bibliography kinds -----------------------------------------------------------------------

NATBIB_BBL = r"""\begin{thebibliography}{2}
\providecommand{\natexlab}[1]{#1}
\bibitem[{Smith {et~al.}(2004)Smith, Jones, \& {Doe}}]{smith04}
Smith, J., et~al. 2004, \newblock ApJ, 600, 1, \doi{10.1086/380000}

\bibitem[{Doe [2]}]{doe}
Doe, J. \newblock arXiv:1501.00001v2
\end{thebibliography}
"""

REVTEX_BBL = r"""\begin{thebibliography}{2}
\providecommand \bibitemStop [0]{.}
\providecommand \bibitemNoStop [0]{.\EOS\space}
\bibitem [{\citenamefont {Bell}(1964)}]{bell}
  \BibitemOpen
  \bibfield  {author} {\bibinfo {author} {\bibfnamefont {J.~S.}\ \bibnamefont {Bell}},\ }
  \href {\doibase 10.1103/PhysicsPhysiqueFizika.1.195} {\bibfield  {journal} {\bibinfo
  {journal} {Physics}\ }\textbf {\bibinfo {volume} {1}}}\BibitemShut {NoStop}%
\bibitem [{Note1()}]{Note1}
  \BibitemOpen
  \bibinfo {note} {A footnote.}\BibitemShut {Stop}%
\end{thebibliography}
"""

BIBLATEX_BBL = r"""\refsection{0}
  \datalist[entry]{nty/global//global/global}
    \entry{b}{article}{}
      \field{title}{Second}
      \field{abstract}{Quotes 10.1000/abstract}
      \field{eprinttype}{arxiv}
      \verb{eprint}
      \verb hep-th/9711200v1
      \endverb
    \endentry
    \entry{a}{article}{}
      \field{title}{First}
      \verb{doi}
      \verb 10.1000/xyz\_1
      \endverb
    \endentry
  \enddatalist
  \datalist[entry]{none/global//global/global}
    \entry{a}{article}{}
    \endentry
  \enddatalist
\endrefsection
"""


def test_natbib_bbl_with_nested_labels() -> None:
    result = bibliography_from_files(
        _files(paper_DOT_tex=DOC + "\\bibliography{refs}" + END, paper_DOT_bbl=NATBIB_BBL), name="t"
    )
    assert result.method == "bbl-bibitem"
    assert [(e.key, e.doi, e.arxiv_id) for e in result.entries] == [
        ("smith04", "10.1086/380000", None),
        ("doe", None, "1501.00001"),
    ]
    assert result.entries[0].raw == "Smith, J., et al. 2004, ApJ, 600, 1, 10.1086/380000"


def test_revtex_bbl_keeps_footnotes_and_reads_doibase() -> None:
    result = bibliography_from_files(
        _files(main_DOT_tex=DOC + "\\bibliography{r}" + END, main_DOT_bbl=REVTEX_BBL), name="t"
    )
    assert [e.key for e in result.entries] == ["bell", "Note1"]
    bell = result.entries[0]
    assert bell.doi == "10.1103/physicsphysiquefizika.1.195"
    assert "\\" not in bell.raw and "{" not in bell.raw and bell.raw.startswith("J. S. Bell,")


def test_biblatex_bbl_reads_the_first_sorting_list() -> None:
    result = bibliography_from_files(
        _files(ms_DOT_tex=DOC + "\\printbibliography" + END, ms_DOT_bbl=BIBLATEX_BBL), name="t"
    )
    assert result.method == "bbl-biblatex"
    assert [(e.key, e.doi, e.arxiv_id) for e in result.entries] == [
        ("b", None, "hep-th/9711200"),
        ("a", "10.1000/xyz_1", None),
    ]


BIB = r"""
@string{apj = "Astrophys. J."}
@article{First, title = {One}, journal = apj, doi = {10.1000/ONE}, note = {see 10.2000/other}}
@article{second, title = "Two", abstract = {cites 10.9000/abstract}, url = {https://doi.org/10.3000/two}}
@inproceedings{c1, title = {C1}, crossref = {proc}}
@inproceedings{c2, title = {C2}, crossref = {PROC}}
@proceedings{proc, title = {Proceedings}}
@article{arx, title = {Preprint}, eprint = {2101.00001v3}, archivePrefix = {arXiv}}
@article{noarx, title = {Plain}, eprint = {2101.00002}}
@article{first, title = {Duplicate key, ignored}}
@article{uncited, title = {Never cited}}
"""


def test_bib_and_cites_in_first_citation_order_with_crossref_parents() -> None:
    tex = (
        DOC
        + "\\cite{second,first}\\cite{missing}\\citep{c1}\\nocite{c2,arx}\\cite{noarx}\\bibliography{refs}"
        + END
    )
    result = bibliography_from_files(_files(main_DOT_tex=tex, refs_DOT_bib=BIB), name="t")
    assert result.method == "bib+cites"
    got = [(e.key, e.doi, e.arxiv_id) for e in result.entries]
    assert got == [
        ("second", "10.3000/two", None),
        ("First", "10.1000/one", None),  # found ignoring case; the doi field wins over the note
        ("c1", None, None),
        ("c2", None, None),
        ("arx", None, "2101.00001"),
        ("noarx", None, None),  # an eprint with no arXiv context is not an arXiv id
        ("proc", None, None),  # named by two listed entries: listed after them
    ]
    assert any("missing" in w for w in result.warnings)
    assert "Astrophys. J." in result.entries[1].raw  # the @string macro, expanded


# An abstract with a line that opens with "@" (an e-mail, a handle): a reader that writes the
# entries out again and splits them at each "@" finds one entry too many there.
SHIFTING_BIB = """
@article{a, title = {Alpha paper}, year = {2001}}
@article{b, title = {Beta paper}, year = {2002},
  abstract = {Contact the authors at
@beta-lab for the data.}}
@article{c, title = {Gamma paper}, year = {2003}, doi = {10.1000/gamma}}
"""


def test_each_bib_entry_keeps_its_own_text_when_another_would_split() -> None:
    tex = DOC + "\\cite{a,b,c}\\bibliography{refs}" + END
    result = bibliography_from_files(_files(main_DOT_tex=tex, refs_DOT_bib=SHIFTING_BIB), name="t")
    got = [(e.key, e.raw, e.doi) for e in result.entries]
    assert got == [
        ("a", "2001. Alpha paper.", None),
        ("b", "2002. Beta paper.", None),
        ("c", "2003. Gamma paper. doi:10.1000/gamma", "10.1000/gamma"),
    ]
    assert result.entries[2].fields["title"] == "Gamma paper"


def test_nocite_star_lists_every_entry() -> None:
    tex = DOC + "\\cite{uncited}\\nocite{*}\\addbibresource{refs.bib}" + END
    keys = _keys(_files(main_DOT_tex=tex, refs_DOT_bib=BIB))
    assert keys == ["uncited", "First", "second", "c1", "c2", "proc", "arx", "noarx"]


def test_bib_files_resolve_from_the_main_folder_and_cites_from_inputs() -> None:
    files = _files(
        paper__main_DOT_tex=DOC + "\\input{sec/a}\\bibliography{bib/refs}" + END,
        paper__sec__a_DOT_tex="\\cite{arx} % \\cite{second}\n",
        paper__bib__refs_DOT_bib=BIB,
        decoy_DOT_bib="@article{arx, title={Wrong file}}",
    )
    result = bibliography_from_files(files, name="t")
    assert [e.key for e in result.entries] == ["arx"]
    assert result.files_read == ["paper/main.tex", "paper/sec/a.tex", "paper/bib/refs.bib"]


def test_inline_thebibliography_and_latin1_sources() -> None:
    tex = (
        DOC
        + "\\cite{b}\\begin{thebibliography}{9}\\bibitem{a} M\xfcller. \\bibitem{b} B.\\end{thebibliography}"
        + END
    )
    result = bibliography_from_files({"x.tex": tex.encode("latin-1")}, name="t")
    assert result.method == "inline-bibitem"
    assert [(e.key, e.raw) for e in result.entries] == [("a", "Müller."), ("b", "B.")]


def test_a_tree_without_a_bibliography_says_so() -> None:
    result = bibliography_from_files(_files(x_DOT_tex=DOC + END), name="t")
    assert (result.method, result.entries, result.main_tex) == ("none", [], "x.tex")
    assert result.warnings
