from curation.references import read_references
from curation.references.formats.bib import BIBTEX_MACROS_BOUNDED, read_bib
from curation.references.formats.bibtex_macros import EXPANSION_FACTOR, MAX_VALUE_CHARS
from tests.references.test_hostile_eprints import _doubling_strings

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


def _reused_macro(uses: int) -> str:
    """Return a .bib whose one 10,000-character @string is every entry's title."""
    entries = "".join(f"@article{{k{i}, title = big, year = 2020}}\n" for i in range(uses))
    return f'@string{{big = "{"x" * 10_000}"}}\n{entries}'


def test_a_macro_used_again_and_again_expands_within_the_files_bound() -> None:
    # Expanded at each use, a 10 KB @string named by 200 entries made 2 MB of titles (a 1 MB
    # one by 10,000 entries would be 10 GB). As in e-prints: at most 4 times the file's size.
    text = _reused_macro(200)
    refs = list(read_bib(text))
    assert len(refs) == 200
    assert sum(len(r.fields.get("title", "")) for r in refs) <= EXPANSION_FACTOR * len(text)
    assert refs[0].fields["title"] == "x" * 10_000 and refs[0].problems == ()
    assert refs[-1].fields["title"] == "big"
    assert refs[-1].problems == (BIBTEX_MACROS_BOUNDED,)


def test_joined_macros_are_read_as_bibtex_reads_them_within_bounds() -> None:
    bib = '@string{aj = "Astron. J."}\n@article{a, journal = aj, title = "T" # "wo", year = 2020}'
    (ref,) = read_bib(bib)
    assert (ref.fields["venue"], ref.fields["title"]) == ("Astron. J.", "Two")
    # Macros joining themselves ten times a level: nine levels would be 10**9 characters.
    (ref,) = read_bib(_doubling_strings(9))
    assert len(ref.raw) <= MAX_VALUE_CHARS and ref.problems == (BIBTEX_MACROS_BOUNDED,)
