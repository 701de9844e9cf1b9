"""The floors of ARCHITECTURE.md: every module is placed on one, and none imports upward.

The import rule itself is import-linter's (`lint-imports`, run by CI and `make lint`, with the
layers in pyproject.toml); this test makes sure no module escapes it by being left out of the
layers, and runs the same check so a plain `make test` catches an upward import too.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Packages whose __init__ only gathers modules of several floors (each placed on its own).
MIXED_PACKAGES = {
    "curation", "curation.record", "curation.resolution", "curation.notices",
    "curation.ingestion",
}  # fmt: skip
# The project package: settings, Celery's app and the WSGI entry wire the apps together; the
# rest is plumbing that imports no app module (the second contract).
PROJECT = "citerec"


def _layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    floors = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    return [[m.strip() for m in floor.split(":")] for floor in floors]


def _modules() -> list[str]:
    found = []
    for package in ("curation", "api"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_every_module_is_on_a_floor() -> None:
    placed = {m for floor in _layers() for m in floor}
    unplaced = [
        module
        for module in _modules()
        if module not in MIXED_PACKAGES
        and not any(module == p or module.startswith(p + ".") for p in placed)
    ]
    assert unplaced == [], "place these in pyproject.toml's layers and ARCHITECTURE.md"


def test_each_module_is_on_one_floor_only() -> None:
    floors = _layers()
    owners: dict[str, int] = {}
    for number, floor in enumerate(floors):
        for module in floor:
            assert module not in owners, f"{module} is on two floors"
            owners[module] = number


def test_no_module_imports_a_floor_above_its_own() -> None:
    import importlinter  # noqa: F401  (make install puts it in the venv: missing fails)

    check = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"  # noqa: E501
    result = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:]
