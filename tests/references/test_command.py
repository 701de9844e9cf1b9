"""The parse_reference management command, run without a database or settings."""

import io
import json

import pytest

pytest.importorskip("django")

from curation.management.commands.parse_reference import Command  # noqa: E402


def test_parse_reference_command_prints_indented_json() -> None:
    out = io.StringIO()
    Command(stdout=out).handle(reference="E., Thekkath, C")
    printed = out.getvalue()
    data = json.loads(printed)
    assert printed.startswith("{\n  ")
    assert (data["title_usable"], data["title_problem"], data["parse_uncertain"]) == (
        False,
        "author_fragment",
        True,
    )


def test_command_imports_only_references_and_basecommand() -> None:
    import curation.management.commands.parse_reference as module

    source = open(module.__file__, encoding="utf-8").read()
    imports = [ln for ln in source.splitlines() if ln.startswith(("import ", "from "))]
    assert all(
        ln.startswith(
            (
                "from __future__",
                "import json",
                "import sys",
                "from typing",
                "from django.core.management.base",
                "from curation.references",
            )
        )
        for ln in imports
    ), imports
