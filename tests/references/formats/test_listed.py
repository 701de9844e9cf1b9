"""Every reader returns one listed-reference type: the key and the identifiers the source
states beside its text, also where the printed text shows none of them."""

from __future__ import annotations

from curation.references import read_references
from curation.references.listed import ListedReference
from tests.references.formats.test_xml_formats import JATS, TEI

BIB = r"""
@article{vaswani17, title = {Attention is all you need}, year = {2017},
  eprint = {1706.03762v5}, archivePrefix = {arXiv}, url = {https://example.org/paper}}
@article{kahneman, title = {Prospect theory}, doi = {https://doi.org/10.2307/1914185},
  abstract = {Unlike 10.1000/other.work, which we cite.}}
"""
BBL = r"""\begin{thebibliography}{2}
\bibitem[Smith(2020)]{smith20} J.~Smith, \href{https://doi.org/10.5555/Widget.2020}{A study
of widgets}, J. Widgets 3 (2020).
\bibitem{nothing} A.~Author, Untitled notes.
\end{thebibliography}"""


def _stated(refs: list[ListedReference]) -> list[tuple[str | None, str | None, str | None]]:
    return [(r.key, r.doi, r.arxiv_id) for r in refs]


def test_a_bib_entry_states_its_doi_and_eprint_fields() -> None:
    refs = list(read_references(BIB, "bib"))
    assert _stated(refs) == [
        ("vaswani17", None, "1706.03762"),
        ("kahneman", "10.2307/1914185", None),  # the doi field, not the DOI its abstract quotes
    ]
    assert refs[0].url == "https://example.org/paper"
    assert refs[0].fields["title"] == "Attention is all you need"


def test_a_bbl_item_states_the_doi_its_latex_holds() -> None:
    refs = list(read_references(BBL, "bbl"))
    assert _stated(refs) == [("smith20", "10.5555/widget.2020", None), ("nothing", None, None)]
    assert refs[0].url == "https://doi.org/10.5555/Widget.2020"
    assert refs[0].fields["printed_label"] == "Smith(2020)"


def test_tei_and_jats_state_their_ids_and_keys() -> None:
    assert _stated(list(read_references(TEI, "tei"))) == [("b0", None, "1706.03762"), ("b1", None, None)]
    assert _stated(list(read_references(JATS, "jats"))) == [("r1", "10.2307/1914185", None), ("r2", None, None)]


def test_plain_text_states_nothing_beside_its_text() -> None:
    (ref,) = read_references("Smith, J. A study. doi:10.1000/x.y", "text")
    assert (ref.key, ref.doi, ref.arxiv_id, ref.url) == (None, None, None, None)  # the parse finds it


def test_what_is_kept_of_a_reference_holds_no_nul() -> None:
    (ref,) = read_references("@article{a\x00b, title = {T}, url = {http://x\x00y}}", "bib")
    assert ref.stored() == {
        "key": "ab", "label": "ab", "line": 1, "fields": {"title": "T", "url": "http://x y",
        "entry_type": "article"}, "url": "http://xy", "problems": ["control_characters_removed"],
    }  # fmt: skip
