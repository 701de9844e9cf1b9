"""The finders extract_identifiers calls, one scheme each, on a shared FoundIdentifiers."""

from __future__ import annotations

from curation.references.identifiers import (
    ArxivId,
    FoundIdentifiers,
    GithubRef,
    Malformed,
    extract_identifiers,
    find_archive_arxiv_ids,
    find_dois,
    find_new_style_arxiv_ids,
    find_urls,
    github_ref,
)


def _found(finder, text: str) -> FoundIdentifiers:  # type: ignore[no-untyped-def]
    found = FoundIdentifiers(text)
    finder(found)
    return found


def test_new_style_ids_by_context_category_and_end_and_a_bad_one_reported() -> None:
    found = _found(
        find_new_style_arxiv_ids,
        "A. B. Title. arXiv:1706.03762v5; C. D. 1207.7214 [hep-ex]; arXiv:0613.1234; (2009), 0901.0657",
    )
    assert list(found.arxiv) == ["1706.03762", "1207.7214", "0901.0657"]
    assert found.arxiv["1706.03762"] == ArxivId("1706.03762", 5)
    assert found.malformed == [Malformed("arxiv", "arXiv:0613.1234", "month 13 is not 01-12")]


def test_a_bare_id_at_the_end_from_the_future_is_not_trusted() -> None:
    assert _found(find_new_style_arxiv_ids, "Phys. Rev. D80, 014002 (2009), 9901.06570").arxiv == {}


def test_archive_ids_new_and_old_style() -> None:
    found = _found(
        find_archive_arxiv_ids, "see astro-ph/0710.3113 and hep-th/9711200v2, foo/9711200"
    )
    assert list(found.arxiv.values()) == [
        ArxivId("0710.3113"),
        ArxivId("hep-th/9711200", 2, "old"),
    ]


def test_dois_cut_short_reported_and_arxiv_dois_give_their_id() -> None:
    found = _found(find_dois, "doi:10.1145 and https://doi.org/10.48550/arXiv.2412.14374.")
    assert list(found.dois) == ["10.48550/arxiv.2412.14374"]
    assert list(found.arxiv) == ["2412.14374"]
    assert [m.raw for m in found.malformed] == ["doi:10.1145"]


def test_urls_once_each_with_their_github_references() -> None:
    url = "https://github.com/NVIDIA/apex/pull/123"
    found = _found(find_urls, f"{url}. See {url}?utm_source=x and www.example.org/a.")
    assert found.urls == [url, "https://www.example.org/a"]
    assert list(found.github.values()) == [GithubRef("nvidia", "apex", "pull", "123")]


def test_github_ref_kinds() -> None:
    assert github_ref("https://github.com/a/b/issues/7") == GithubRef("a", "b", "issue", "7")
    assert github_ref("https://github.com/a/b/commits/ABCDEF1") == GithubRef(
        "a", "b", "commit", "abcdef1"
    )
    assert github_ref("https://github.com/a/b") is None


def test_nothing_found_is_the_shared_empty_identifiers() -> None:
    assert extract_identifiers("Smith J. A title. Nature 5, 1 (2001).") is extract_identifiers("x")
