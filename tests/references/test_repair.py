import pytest

from curation.references import normalize_title, repair_reference


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "https://github.com/ NVIDIA/Megatron- LM/issues/1611.",
            "https://github.com/NVIDIA/Megatron-LM/issues/1611.",
        ),
        (
            "https://awsdocs- neuron.readthedocs-hosted.com/en/latest/libraries/neuronx- distributed/index.html",
            "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/neuronx-distributed/index.html",
        ),
        ("See https://pytorch.org/ Accessed 2024", "See https://pytorch.org/ Accessed 2024"),
        ("arXiv :1611 .09748v4", "arXiv:1611.09748v4"),
        ("arXiv preprint arXiv:2105. 04663, 2021", "arXiv preprint arXiv:2105.04663, 2021"),
        ("In Proc. X, 2020. 1234–1240", "In Proc. X, 2020. 1234–1240"),
        ("https://doi.org/10.1145/3600006. 3613165", "https://doi.org/10.1145/3600006.3613165"),
        ("doi:10.1145/ 3341301.3359630.", "doi:10.1145/3341301.3359630."),
        ("Megatron- LM", "Megatron-LM"),
        ("Implemen- tation", "Implementation"),
        ("Deep Learn- ing", "Deep Learning"),
        ("Inter- and Intra-Operator", "Inter- and Intra-Operator"),
        ("Non- deterministic", "Non-deterministic"),
        ("end- to-end training", "end-to-end training"),
        ("InProceedings of the ACM", "In Proceedings of the ACM"),
        ("In16th USENIX Symposium", "In 16th USENIX Symposium"),
        ("Parallelism.https://github.com/a/b", "Parallelism. https://github.com/a/b"),
        ("Erd\\H{o}s and R\\'enyi", "Erdős and Rényi"),
        ("fÃ¼r Physik", "für Physik"),
        (
            "DeepSpeed and PyTorch with hyperparameters",
            "DeepSpeed and PyTorch with hyperparameters",
        ),
    ],
)
def test_repair_reference(raw: str, expected: str) -> None:
    assert repair_reference(raw)[0] == expected


def test_glued_title_matches_the_real_title_once_repaired() -> None:
    text, repairs = repair_reference(
        "TrainingwithConfidence:CatchingSilentErrorsinDeep Learning Training"
    )
    assert normalize_title(text) == normalize_title(
        "Training with Confidence: Catching Silent Errors in Deep Learning Training"
    )
    assert {r.kind for r in repairs} == {"glued_words"}


def test_code_identifiers_keep_their_camel_case() -> None:
    text, _ = repair_reference(
        "not re- ducedacrossTPranksiflinear_kv_down_projisColumnParallelLinear."
    )
    assert text == "not reduced across TP ranks if linear_kv_down_proj is ColumnParallelLinear."


def test_every_repair_is_recorded_with_before_and_after() -> None:
    _, repairs = repair_reference("Alpa:Automat- ing Parallelism.https://github.com/ a/b/issues/1")
    kinds = [r.kind for r in repairs]
    assert "hyphenation" in kinds and "url_space" in kinds and "url_glued" in kinds
    hyphen = next(r for r in repairs if r.kind == "hyphenation")
    assert (hyphen.before, hyphen.after) == ("Automat- ing", "Automating")


def test_clean_text_needs_no_repair() -> None:
    raw = "Vaswani, A. et al. 2017. Attention is all you need. In NeurIPS. arXiv:1706.03762"
    assert repair_reference(raw) == (raw, [])
