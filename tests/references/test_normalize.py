import pytest

from curation.references import compact_title, normalize_reference_text, normalize_title


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


def test_compact_title_is_glue_insensitive() -> None:
    glued = "TrainingwithConfidence:CatchingSilentErrorsinDeep Learning"
    assert compact_title(glued) == compact_title(
        "Training with Confidence: Catching Silent Errors in Deep Learning"
    )


def test_normalisation_reaches_its_fixed_point_when_folding_makes_new_mojibake() -> None:
    # Found by Hypothesis: NFKC of "¨" and casefolding left "â†", which a second pass repaired.
    once = normalize_reference_text("¨Â\x86¬")
    assert normalize_reference_text(once) == once
