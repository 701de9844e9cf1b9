"""The compiled parser (curation/references/native.py): used only while it matches its sources.

The edit tests copy the package (sources, compiled modules, manifest) to a temporary tree and
import it in a new interpreter, so the checkout's own modules are never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from curation.references import native, parse_reference

PROBE = (
    "import logging, sys; logging.basicConfig(stream=sys.stdout, format='%(message)s'); "
    "from curation.references import native, parse_reference; "
    "print(native.state(), native.in_use(), parse_reference('J. Doe, A title here. Nature 5 (2001) 1.').year)"
)

built = pytest.mark.skipif(native.state() == "absent", reason="the parser is not compiled here")


def test_ci_runs_the_compiled_parser() -> None:
    """CI compiles the parser (`make install`) and sets CITEREC_REQUIRE_NATIVE: it must be used."""
    if os.environ.get("CITEREC_REQUIRE_NATIVE") != "1":
        pytest.skip("CITEREC_REQUIRE_NATIVE is not set")
    assert native.state() == "fresh"
    assert native.in_use()


def test_the_compiled_parser_parses_as_its_sources() -> None:
    """Whichever runs, the parse is the one the tests expect (bench/parse_golden.py checks all)."""
    parsed = parse_reference("A. Smith and B. Jones, Deep nets for stars. ApJ 900 (2020) 12.")
    assert (parsed.year, parsed.title) == (2020, "Deep nets for stars")


def _copy_package(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    source = Path(native.__file__).parent
    shutil.copytree(
        source, root / "curation" / "references", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(source.parent / "__init__.py", root / "curation" / "__init__.py")
    return root


def _probe(root: Path, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


@built
def test_fresh_compiled_modules_are_used(tmp_path: Path) -> None:
    assert _probe(_copy_package(tmp_path)).splitlines()[-1] == "fresh True 2001"


@built
def test_an_edited_source_is_run_instead_of_its_stale_compiled_copy(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    parse = root / "curation" / "references" / "parse.py"
    parse.write_text(parse.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    lines = _probe(root).splitlines()
    assert "does not match its sources" in lines[0]
    assert lines[-1] == "stale False 2001"


@built
def test_compiled_modules_without_their_manifest_are_not_trusted(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    (root / "curation" / "references" / "_native.json").unlink()
    assert _probe(root).splitlines()[-1] == "stale False 2001"


@built
def test_the_compiled_parser_can_be_switched_off(tmp_path: Path) -> None:
    assert (
        _probe(_copy_package(tmp_path), CITEREC_NATIVE="0").splitlines()[-1] == "fresh False 2001"
    )


def test_no_compiled_modules_means_the_sources(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    for compiled in (root / "curation" / "references").glob("*.so"):
        compiled.unlink()
    assert _probe(root).splitlines()[-1] == "absent False 2001"
