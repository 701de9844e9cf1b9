"""The floors of ARCHITECTURE.md: every module is placed on one, and none imports upward.

The import rule itself is import-linter's (`lint-imports`, run by CI and `make lint`, with the
layers in pyproject.toml); this test makes sure no module escapes it by being left out of the
layers, and runs the same check so a plain `make test` catches an upward import too.
"""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
import tomllib
from itertools import pairwise
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


def test_every_app_keeps_its_rooms_under_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    rooms = next(c for c in config["contracts"] if c.get("containers"))
    apps = {"curation", "api"} | {
        "curation." + path.parent.name for path in (ROOT / "curation").glob("*/models.py")
    }
    assert set(rooms["containers"]) == apps, "list each app in the rooms contract's containers"


def test_no_module_imports_a_floor_above_its_own() -> None:
    import importlinter  # noqa: F401  (make install puts it in the venv: missing fails)

    check = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"  # noqa: E501
    result = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:]


# Modules that may read the process environment, and why; every other module reads
# django.conf.settings, and settings read the environment (ARCHITECTURE.md, README "Settings").
ENVIRONMENT_READERS = {
    "citerec/settings.py": "every setting is read from the environment here",
    "citerec/env.py": "the typed readers settings.py reads the environment with",
    "citerec/celery.py": "points a worker at the settings module (DJANGO_SETTINGS_MODULE)",
    "citerec/wsgi.py": "points the web server at the settings module (DJANGO_SETTINGS_MODULE)",
    "curation/backup.py": "hands its own environment on to pg_dump and psql (reads no setting)",
    "curation/management/commands/grant_runtime_role.py": (
        "a password from the variable an option names (never on the command line)"
    ),
}
_ENVIRONMENT_NAMES = {"environ", "environb", "getenv", "getenvb"}


def _reads_environment(tree: ast.AST) -> list[int]:
    """Return the lines where a module reads the environment: os.environ / os.getenv, or
    those names (or citerec.env's readers) imported."""
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _ENVIRONMENT_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (
            (node.module == "os" and any(a.name in _ENVIRONMENT_NAMES for a in node.names))
            or node.module == "citerec.env"
            or (node.level == 1 and node.module == "env")  # inside citerec/
            or (node.module == "citerec" and any(a.name == "env" for a in node.names))
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name == "citerec.env" for a in node.names):
            lines.append(node.lineno)
    return lines


def test_only_settings_read_the_environment() -> None:
    readers = {}
    for package in ("curation", "api", "citerec"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            lines = _reads_environment(ast.parse(path.read_text(), filename=name))
            if lines:
                readers[name] = lines
    unexpected = {name: lines for name, lines in readers.items() if name not in ENVIRONMENT_READERS}
    assert unexpected == {}, "read django.conf.settings; add the setting to citerec/settings.py"
    assert sorted(readers) == sorted(ENVIRONMENT_READERS), "an allowed reader no longer reads it"


# --- no loop between apps ---------------------------------------------------------------------

# An app is a package of curation/ (or api/); the core app's rooms are curation/services/ and
# curation/selectors.py. Faces (admin, tasks, commands, views, template tags) sit above every app
# and may call any app's services and selectors, so their imports make no loop.
APPS = (
    "api", "curation.catalogue", "curation.clients", "curation.ingestion", "curation.notices", "curation.record",
    "curation.references", "curation.resolution",
)  # fmt: skip
CORE_ROOMS = ("curation.services", "curation.selectors")
# Parts of a face module's path; an app's further admin screens are admin_<screen>.py too.
FACE_PARTS = {"admin", "tasks", "management", "templatetags", "apps", "views", "urls"}


def _app(module: str) -> str | None:
    parts = module.split(".")
    if FACE_PARTS & set(parts) or any(part.startswith("admin_") for part in parts):
        return None
    for app in APPS:
        if module == app or module.startswith(app + "."):
            return app
    if any(module == room or module.startswith(room + ".") for room in CORE_ROOMS):
        return "curation"
    return None


def app_imports() -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Return, for each app that imports another, the module imports that do it."""
    import grimp

    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph("curation", "api")
    imports: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for module in graph.modules:
        source = _app(module)
        for imported in graph.find_modules_directly_imported_by(module) if source else ():
            target = _app(imported)
            if target is not None and target != source:
                imports.setdefault((source, target), []).append((module, imported))  # type: ignore[arg-type]
    return imports


def app_loop(imports: dict[tuple[str, str], list[tuple[str, str]]]) -> list[str]:
    """Return one loop of apps (first app repeated last), or [] when the apps form layers.

    A loop of any length counts: notices -> record -> resolution -> notices is as much a knot
    as two apps importing each other."""
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for source, target in imports:
        sorter.add(source, target)
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        return list(reversed(error.args[1]))
    return []


def test_apps_import_each_other_in_no_loop() -> None:
    imports = app_imports()
    loop = app_loop(imports)
    steps = {f"{a} -> {b}": imports[a, b] for a, b in pairwise(loop)}
    assert loop == [], f"a loop between apps, move the shared piece below them: {steps}"


def test_a_loop_of_three_apps_is_found() -> None:
    imports = {("a", "b"): [], ("b", "c"): [], ("c", "a"): [], ("c", "d"): []}
    loop = app_loop(imports)
    assert loop[0] == loop[-1] and set(loop) == {"a", "b", "c"}
    assert app_loop({("a", "b"): [], ("b", "c"): [], ("a", "c"): []}) == []


if __name__ == "__main__":  # python tests/test_architecture.py: the imports between apps
    imports = app_imports()
    for (a, b), found in sorted(imports.items()):
        print(f"{a} -> {b}")
        for module, imported in found:
            print(f"    {module} -> {imported}")
    print("loop:", " -> ".join(app_loop(imports)) or "none")
