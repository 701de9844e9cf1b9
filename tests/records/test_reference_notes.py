"""What the record page shows of a reference besides v1 (curation/record/reference_notes.py)."""

from __future__ import annotations

from curation.record.reference_notes import note_for


def test_a_link_urllib_cannot_split_is_shown_as_printed() -> None:
    # An unbalanced "[" after the scheme reads as a broken IPv6 host: urlsplit raises.
    note = note_for("Foo, A. Bar baz. https://[broken.example/x and more")
    assert note.url == "https://[broken.example/x" and note.host is None
    assert "https://[broken.example/x" in (note.label or "")


def test_a_github_link_is_named_by_its_repository() -> None:
    note = note_for("Smith. Apex: a PyTorch extension. https://github.com/NVIDIA/apex")
    assert note.host == "github.com" and "GitHub NVIDIA/apex" in (note.label or "")
