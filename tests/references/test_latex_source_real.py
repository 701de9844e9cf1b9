"""End to end on real e-prints of ../shared/data/arxiv-sources: key lists equal to gold.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curation.references.latex_source import bibliography_from_eprint

DATA = Path(__file__).resolve().parents[3] / "shared/data/arxiv-sources"
# One of each kind: REVTeX .bbl with footnotes, biber \sortlist, .bib + cites, inline (gzip'd
# single file), and a multi-file tree whose main file sits in a subfolder.
SLUGS = {
    "Ciro-Taranto__fRG_paper": "bbl-bibitem",
    "jkropko__between_effects": "bbl-biblatex",
    "THinnerichs__DTI-VOODOO": "bib+cites",
    "svaikunt__Rectification-in-active-gyroscopic-networks": "inline-bibitem",
    "TSL-UOB__CAV-Determinism": "bib+cites",
}


def _gold() -> dict[str, dict]:
    if not (DATA / "gold.jsonl").exists():
        pytest.skip(f"the arxiv-sources data set is not at {DATA}")
    lines = (DATA / "gold.jsonl").read_text(encoding="utf-8").splitlines()
    return {g["slug"]: g for g in map(json.loads, lines) if g["slug"] in SLUGS}


@pytest.mark.parametrize("slug", sorted(SLUGS))
def test_real_eprint_gives_the_gold_list(slug: str) -> None:
    gold = _gold()[slug]
    result = bibliography_from_eprint((DATA / gold["archive"]).read_bytes(), name=slug)
    assert result.method == SLUGS[slug]
    assert [e.key for e in result.entries] == [r["key"] for r in gold["references"]]
    if gold["format"] == "tar.gz":
        assert result.main_tex == gold["main_tex"]
        assert [p for p in result.files_read if p.endswith(".tex")] == gold["tex_files_read"]
    found = {(e.key, (e.doi or "").lower(), e.arxiv_id) for e in result.entries}
    wanted = {(r["key"], (r["doi"] or "").lower(), r["arxiv_id"]) for r in gold["references"]}
    assert found == wanted
    assert all("\\" not in e.raw and "{" not in e.raw for e in result.entries)
