"""Faces read through selectors: no API view, admin screen, reader page, task or command
queries a model itself.

Issue 27: views, filters and serializers parse the request, call one service or selector and
shape the answer; reads live on the reads floor (curation/selectors.py and its siblings). A
query in a face shows as a manager (`Model.objects`, `Model._default_manager`) or Django's
query shortcuts (`get_object_or_404`), so those are what this test looks for, by parsing the
modules (nothing is imported). A FilterSet's `queryset.filter(...)` on the rows it is handed is
the filter's own job and is not flagged.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "api"
CURATION = ROOT / "curation"

# The faces of ARCHITECTURE.md's chart (the first layer in pyproject.toml's import-linter
# contract), as files: what parses a request, a job or a command line.
FACE_GLOBS = [
    "api/**/*.py",
    "curation/admin/*.py",
    "curation/views/*.py",
    "curation/templatetags/*.py",
    "curation/*/templatetags/*.py",
    "curation/tasks.py",
    "curation/*/tasks.py",
    "curation/*/admin.py",
    "curation/*/admin_*.py",
    "curation/management/commands/*.py",
    "curation/*/management/commands/*.py",
    "curation/urls.py",
    "curation/record/http.py",
    "curation/record/revalidation.py",
]
# The token model's own methods query it (api/models.py); migrations are not faces.
SKIPPED = {API / "models.py"}
SKIPPED_DIRS = {API / "migrations"}
# Makes the demo login: Django's own user table, not curated data, read or written.
EXEMPT: set[Path] = {CURATION / "management" / "commands" / "create_demo_admin.py"}

MANAGERS = {"objects", "_default_manager", "_base_manager"}
SHORTCUTS = {"get_object_or_404", "get_list_or_404"}


def _face_modules() -> list[Path]:
    found = {path for pattern in FACE_GLOBS for path in ROOT.glob(pattern)}
    return [
        path
        for path in sorted(found)
        if path not in SKIPPED and not any(d in path.parents for d in SKIPPED_DIRS)
    ]


def queries_in(source: str) -> list[tuple[int, str]]:
    """Return (line, what) for each manager access or query shortcut in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in MANAGERS:
            found.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.Name) and node.id in SHORTCUTS:
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.alias) and node.name in SHORTCUTS:
            found.append((node.lineno, f"import {node.name}"))
    return sorted(found)


def test_the_check_sees_managers_and_shortcuts() -> None:
    source = (
        "from django.shortcuts import get_object_or_404\n"
        "rows = Paper.objects.filter(x=1)\n"
        "one = model._default_manager.get(pk=1)\n"
        "two = get_object_or_404(Paper, pk=1)\n"
        "fine = queryset.filter(title__icontains='x')\n"
        "also_fine = Events.no_objects.none()\n"
    )
    assert queries_in(source) == [
        (1, "import get_object_or_404"),
        (2, ".objects"),
        (3, "._default_manager"),
        (4, "get_object_or_404"),
    ]


def test_faces_query_through_selectors() -> None:
    modules = _face_modules()
    for face in ("api/filters.py", "curation/admin/queue.py", "curation/views/evidence.py",
                 "curation/notices/tasks.py", "curation/management/commands/dump_records.py"):  # fmt: skip
        assert ROOT / face in modules, face
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in modules
        if path not in EXEMPT
        for line, what in queries_in(path.read_text())
    ]
    assert offenders == [], (
        "faces read through selectors (curation/selectors.py and curation/*/selectors.py):\n"
        + "\n".join(offenders)
    )
