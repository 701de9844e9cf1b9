"""The references of the seed page (../shared/seeds): the damage this product exists to fix."""

from __future__ import annotations

import re
from pathlib import Path

from curation.references import parse_reference

PAGE = Path(__file__).parent / "fixtures" / "seed_page_verifying_computational_graphs.txt"


def seed_references() -> list[str]:
    text = PAGE.read_text()
    cites = re.finditer(r"^This paper cites (.+)\.$", text, re.M)
    return [m.group(1) for m in cites if m.group(1) != "an unresolved cited work"]


def test_author_fragments_and_venues_are_never_titles() -> None:
    flagged = {
        raw: parse_reference(raw).title_problem
        for raw in seed_references()
        if parse_reference(raw).parse_uncertain
    }
    assert flagged == {
        "Lim, and Santosh Nagarakatte": "author_fragment",
        "Gunawi, Mingzhe Hao, Riza O": "author_fragment",
        "Pollard, Nadesh Ramanathan, and John Wickerson": "author_fragment",
        "InProceedings of the 45th International Conference on Software Engineering(Melbourne, Victoria, Australia) (ICSE ’23)": "venue_only",
        "InProceedings of the 19th USENIX Symposium on Operating Systems Design and Implementation (OSDI ’25)": "venue_only",
        "In16th USENIX Symposium on Operating Systems Design and Implemen- tation (OSDI 22)": "venue_only",
        "ACM Program": "venue_only",
        "InProceedings of the ACM SIGOPS 30th Symposium on Operating Systems Principles(Austin, TX, USA)(SOSP ’24)": "venue_only",
    }


def test_github_references_survive_line_break_spaces() -> None:
    github = [parse_reference(raw).identifiers.github for raw in seed_references()]
    found = {(g.owner, g.repo, g.kind, g.ref) for refs in github for g in refs}
    assert len(found) == 16
    # "https://github.com/NVIDIA/Megatron- LM/issues/1611" and "…/kohya- ss/sd-scripts/…" on the page
    assert ("nvidia", "megatron-lm", "issue", "1611") in found
    assert ("kohya-ss", "sd-scripts", "issue", "924") in found
    assert ("nvidia", "megatron-lm", "commit", "5fffdfc737f14297bc3781dfc9e273199d1df52e") in found


def test_glued_and_hyphen_broken_titles_are_repaired() -> None:
    titles = {parse_reference(raw).title for raw in seed_references()}
    assert (
        "Training with Confidence: Catching Silent Errors in Deep Learning Training with Automated Proactive Checks"
        in titles
    )
    assert any(
        t and t.startswith("Alpa: Automating Inter- and Intra-Operator Parallelism") for t in titles
    )
