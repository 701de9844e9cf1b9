"""The parser's modules compiled to C with mypyc, used only while they match their sources.

Parsing is pure, typed Python, and mypyc compiles such code to C extension modules that run
the same logic about 1.2x faster (bench/README.md, bench_parse.py row). `make install` builds them in place,
beside their sources (`python -m curation.references.native build`), and writes a manifest
with the SHA-256 of each compiled source.

Python imports an extension module before a `.py` file of the same name, so an edited source
would be shadowed by its stale compiled copy. `prefer_fresh()` (called first thing by the
package) checks the manifest against the sources: if any compiled module no longer matches,
or the manifest is missing, every module below is imported from its source instead (all or
nothing: compiled modules call each other directly), with one warning saying how to rebuild.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

log = logging.getLogger(__name__)

PACKAGE = "curation.references"
HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "_native.json"
# The modules parse_reference runs through (formats/ and the lexicon stay interpreted: they are
# not on the hot path, or are data).
MODULES = (
    "authors",
    "identifiers",
    "journals",
    "normalize",
    "parse",
    "quality",
    "repair",
    "sentences",
    "words",
)
GROUP = f"{PACKAGE}._native"  # the shared library of the group: _native__mypyc.*.so


def source_digests() -> dict[str, str]:
    """Return the SHA-256 of each compiled module's source."""
    return {
        name: hashlib.sha256((HERE / f"{name}.py").read_bytes()).hexdigest() for name in MODULES
    }


def compiled_files() -> list[Path]:
    """Return the compiled modules present beside the sources (for this Python's ABI)."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return [
        HERE / f"{name}{suffix}"
        for name in (*MODULES, "_native__mypyc")
        for suffix in suffixes
        if (HERE / f"{name}{suffix}").exists()
    ]


def state() -> str:
    """Return "fresh" (compiled modules match their sources), "stale", or "absent"."""
    if not compiled_files():
        return "absent"
    try:
        built = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "stale"
    return "fresh" if built.get("sources") == source_digests() else "stale"


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Import the compiled modules' names from their `.py` sources."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        prefix, _, name = fullname.rpartition(".")
        if prefix != PACKAGE or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, HERE / f"{name}.py")


def prefer_fresh() -> str:
    """Use the compiled modules only if they are fresh (and not switched off by
    CITEREC_NATIVE=0, for comparisons and debugging); return the state found."""
    found = state()
    off = os.environ.get("CITEREC_NATIVE", "1") == "0"
    if found == "stale" and not off:
        log.warning(
            "the compiled parser (curation/references/*.so) does not match its sources: "
            "running the sources instead (slower); `make install` rebuilds it"
        )
    if (found == "stale" or off) and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())
    return found


def in_use() -> bool:
    """Return whether parse_reference runs compiled code in this process."""
    module = sys.modules.get(f"{PACKAGE}.parse")
    return module is not None and not str(module.__file__).endswith(".py")


def build() -> None:
    """Compile the modules in place and write the manifest (needs mypy and a C compiler)."""
    import tempfile

    from mypyc.build import mypycify
    from setuptools import setup

    for old in compiled_files():  # never leave a half-built set behind a failed build
        old.unlink()
    MANIFEST.unlink(missing_ok=True)
    digests = source_digests()
    root = HERE.parent.parent
    with tempfile.TemporaryDirectory(prefix="citerec-mypyc-") as temp:
        cwd = Path.cwd()
        os.chdir(root)  # mypyc names modules by their paths from here
        try:
            extensions = mypycify(
                [f"curation/references/{name}.py" for name in MODULES],
                group_name=GROUP,
                target_dir=str(Path(temp) / "c"),
            )
            setup(
                name="citerec-native-parser",
                ext_modules=extensions,
                script_args=[
                    "--quiet",
                    "build_ext",
                    "--inplace",
                    "--build-temp",
                    str(Path(temp) / "o"),
                ],
            )
        finally:
            os.chdir(cwd)
    if source_digests() != digests:
        raise SystemExit("a source changed while it was compiled: run the build again")
    MANIFEST.write_text(
        json.dumps({"sources": digests}, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"compiled {len(MODULES)} parser modules with mypyc")


if __name__ == "__main__":
    if sys.argv[1:] != ["build"]:
        raise SystemExit("usage: python -m curation.references.native build")
    build()
