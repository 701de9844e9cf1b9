from curation.references import read_references

BIB = r"""@string{acm = "ACM Press"}
@comment{ignored}
@article{good1,
  author = {M{\"u}ller, Karl and Smith, J.},
  title = {{Deep} Learning for \emph{Things}},
  journal = acm, year = 2020, doi = {10.1145/1234.5678}
}
@inproceedings{broken,
  title = {Unbalanced {braces here,
  year = {2021}
}
@misc{good2, title = "A title", year = {2022}, eprint={2101.00001}, archivePrefix={arXiv}}
"""


def test_entries_in_order_with_fields_and_macros() -> None:
    refs = list(read_references(BIB))
    assert [(r.index, r.label, r.line) for r in refs] == [
        (1, "good1", 3),
        (2, "broken", 8),
        (3, "good2", 12),
    ]
    good = refs[0]
    assert good.fields["title"] == "Deep Learning for Things"
    assert good.fields["author"] == "Müller, Karl and Smith, J."
    assert good.fields["venue"] == "ACM Press"
    assert (
        good.raw
        == "Müller, Karl and Smith, J. 2020. Deep Learning for Things. ACM Press. doi:10.1145/1234.5678"
    )
    assert refs[2].fields["arxiv"] == "2101.00001"


def test_unbalanced_braces_flag_that_entry_only() -> None:
    refs = list(read_references(BIB))
    assert refs[1].problems == ("bibtex_unbalanced_braces",)
    assert refs[0].problems == () and refs[2].problems == ()


def test_duplicate_keys_are_both_kept() -> None:
    text = "@misc{k, title={One}}\n@misc{k, title={Two}}\n"
    assert [r.fields["title"] for r in read_references(text, "bib")] == ["One", "Two"]
