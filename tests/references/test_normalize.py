import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curation.references import compact_title, normalize_reference_text, normalize_title
from curation.references.normalize import _normalize_title_slow


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Vaswani, A.  Attention is all you need.", "vaswani, a. attention is all you need"),
        ("Smith , J. “Quoted” title — 2020", 'smith, j. "quoted" title - 2020'),
        ("Ãœber die Quantenmechanik", "über die quantenmechanik"),
        ("ﬁne-tuning\u00a0models", "fine-tuning models"),
        ("A NUL\x00 here", "a nul here"),
        ("Trailing dots...", "trailing dots"),
    ],
)
def test_normalize_reference_text(a: str, b: str) -> None:
    assert normalize_reference_text(a) == b


def test_normalize_reference_text_identifies_whitespace_and_case_variants() -> None:
    one = "Kwon, W. et al.  Efficient Memory Management. SOSP '23."
    two = "kwon, w. et al. efficient memory management . sosp '23"
    assert normalize_reference_text(one) == normalize_reference_text(two)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        (
            "Megatron- LM : Training Multi-Billion Parameter Models",
            "megatron lm training multi billion parameter models",
        ),
        (
            "Megatron-LM: Training Multi-Billion Parameter Models",
            "megatron lm training multi billion parameter models",
        ),
        ("Distributed Deep Learn- ing", "distributed deep learning"),
        ("Design and Implemen- tation", "design and implementation"),
        ("Erdős–Rényi graphs", "erdos renyi graphs"),
        ("Zero Bubble (Almost) Pipeline Parallelism.", "zero bubble almost pipeline parallelism"),
    ],
)
def test_normalize_title(title: str, expected: str) -> None:
    assert normalize_title(title) == expected


# ASCII with what the fold acts on: NUL (deleted), other controls (spaces, which can make a
# "- " break), the backquote, hyphens and spaces, underscores, letters of both cases, digits.
_ASCII_TITLES = st.text(alphabet="aZq7_ -`'.:\x00\x01\x0b\t(", max_size=40)


@given(_ASCII_TITLES)
@settings(max_examples=2000, deadline=None)
def test_normalize_title_ascii_shortcut_gives_the_full_normalisation(title: str) -> None:
    assert normalize_title(title) == _normalize_title_slow(title)


@pytest.mark.parametrize("title", ["Learn-\x01ing", "A\x00B", "Learn- ing", "x`y", "Deep_Nets"])
def test_normalize_title_ascii_shortcut_leaves_folds_and_breaks_to_the_full_path(
    title: str,
) -> None:
    assert normalize_title(title) == _normalize_title_slow(title)


def test_compact_title_is_glue_insensitive() -> None:
    glued = "TrainingwithConfidence:CatchingSilentErrorsinDeep Learning"
    assert compact_title(glued) == compact_title(
        "Training with Confidence: Catching Silent Errors in Deep Learning"
    )


def test_normalisation_reaches_its_fixed_point_when_folding_makes_new_mojibake() -> None:
    # Found by Hypothesis: NFKC of "¨" and casefolding left "â†", which a second pass repaired.
    once = normalize_reference_text("¨Â\x86¬")
    assert normalize_reference_text(once) == once
