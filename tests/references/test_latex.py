"""LaTeX markup in references turned into the text a reader of the compiled paper sees."""

from __future__ import annotations

import pytest

from curation.references.latex import latex_to_text


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"Balestra, I., et al. 2010, \aap, 512, A12", "Balestra, I., et al. 2010, A&A, 512, A12"),
        (r"Wise, J. H. 2012, \apj, 745, 50; \mnras, 427, 311", "Wise, J. H. 2012, ApJ, 745, 50; MNRAS, 427, 311"),
        (r"\apjs, 192, 18 and \apjl, 1", "ApJS, 192, 18 and ApJ, 1"),
        (r"{\AA}ngstr{\"o}m, A. \prl 1", "Ångström, A. Phys. Rev. Lett. 1"),
        (r"\apjsupp is no journal macro", "is no journal macro"),  # not \apj followed by "supp"
    ],
)
def test_journal_macros_print_their_abbreviation(latex: str, text: str) -> None:
    assert latex_to_text(latex) == text
