"""import_references on hostile files: an oversize file is refused unread in one line; an
oversize reference keeps its start, flagged, in its place; deep XML is refused by line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.models import Observation

pytestmark = pytest.mark.django_db


def run(path: Path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_references", "2501.00001", str(path), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_file_over_the_size_limit_is_refused_and_nothing_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_REFERENCE_FILE_BYTES", 1000)
    path = tmp_path / "refs.txt"
    path.write_text("[1] Smith, J. A fine title. 2020.\n" * 40)

    with pytest.raises(CommandError) as caught:
        run(path)

    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: file of 1,360 bytes is larger than the limit of 1,000")
    assert "CITEREC_MAX_REFERENCE_FILE_BYTES" in message
    assert not Observation.objects.exists()


def test_a_reference_over_the_text_limit_keeps_its_start_in_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(django_settings, "CITEREC_MAX_REFERENCE_CHARS", 100)
    path = tmp_path / "refs.txt"
    long_one = "Smith, J. " + "A very long glued title " * 20
    path.write_text(f"[1] Doe, J. Short. 2020.\n[2] {long_one}\n[3] Roe, R. Also short. 2021.\n")

    out, err = run(path)

    assert "3 references: created 3" in out
    [warning] = [line for line in err.splitlines() if "reference 2" in line]
    assert warning.startswith(f"{path}: line 2: reference 2: {len(long_one.strip()):,} characters")
    assert warning.endswith(
        "longer than the limit of 100 characters (CITEREC_MAX_REFERENCE_CHARS); its start is kept"
    )
    stored = {o.reference_index: o.raw_text for o in Observation.objects.all()}
    assert stored[2] == long_one[:100]
    assert stored[1] == "Doe, J. Short. 2020." and stored[3] == "Roe, R. Also short. 2021."


def test_deeply_nested_xml_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "refs.xml"
    body = "<x>" * 100_000 + "</x>" * 100_000
    path.write_text(
        f'<TEI xmlns="http://www.tei-c.org/ns/1.0">\n<listBibl>\n{body}</listBibl></TEI>'
    )

    with pytest.raises(
        CommandError, match=r"refs.xml: TEI: line 3: not well-formed XML \(Excessive depth"
    ):
        run(path)
    assert not Observation.objects.exists()


def test_a_bib_whose_macros_expand_past_the_bound_says_which_references(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    entries = "".join(f"@article{{k{i}, title = big, year = 2020}}\n" for i in range(12))
    path.write_text(f'@string{{big = "{"x" * 1_000}"}}\n{entries}')

    out, err = run(path)

    assert "12 references: created 12" in out
    warned = [line for line in err.splitlines() if "@string macros" in line]
    assert warned and warned[0].startswith(f"{path}: line 7: reference 6: its @string macros")
    assert len(warned) == 7  # references 6 to 12: the first 5 fill 4 times the file's size
