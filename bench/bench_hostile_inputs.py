"""Peak memory of refusing hostile record files (and of importing a normal one, for scale).

Usage: DATABASE_URL=postgresql://... python bench/bench_hostile_inputs.py [TITLE_MB]

Writes each file to a temporary folder, runs `manage.py import_records FILE` in a child process
per file and prints the child's peak resident memory (wait4's ru_maxrss) and what it said. The
database must be migrated (`DEBUG=1 python manage.py migrate`); refused files write nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests import records_factory as rf  # noqa: E402

MB = 1 << 20


def title_record(path: Path, title_bytes: int) -> Path:
    """Write a valid-looking record whose paper title is `title_bytes` long, without holding it."""
    document = rf.record("2501.99999", [rf.observation("2501.99999", 1)])
    document["paper"]["title"] = "@@TITLE@@"
    head, tail = json.dumps(document).split("@@TITLE@@")
    with path.open("w") as out:
        out.write(head)
        chunk = "T" * MB
        for _ in range(title_bytes // MB):
            out.write(chunk)
        out.write("T" * (title_bytes % MB))
        out.write(tail)
    return path


def deep_record(path: Path, depth: int) -> Path:
    path.write_text(
        '{"schema": "pith.paper-citation-record.v1", "x": ' + "[" * depth + "]" * depth + "}"
    )
    return path


def run(path: Path) -> tuple[float, float, str]:
    """Return (peak RSS in MiB, seconds, last stderr line) of importing one file in a child."""
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, str(REPO / "manage.py"), "import_records", str(path)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    output = child.stdout.read()  # before wait4: the child's own exit must be reaped by it
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped above; keeps Popen from waiting again
    seconds = time.perf_counter() - started
    lines = output.splitlines()
    said = next(
        (ln for ln in lines if ln.startswith(("rejected", "/"))), lines[-1] if lines else ""
    )
    return usage.ru_maxrss / 1024, seconds, said


def main() -> None:
    title_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        cases = {
            "sample record (imports; for scale)": REPO / "samples/records/citation-record-2412.14374.json",
            f"{title_mb} MB title (over the 50 MB file limit)": title_record(base / "a.json", title_mb * MB),
            "49 MB title (under the file limit, over the string limit)": title_record(base / "b.json", 49 * MB),
            "100,000-deep nesting": deep_record(base / "c.json", 100_000),
        }  # fmt: skip
        print(f"{'file':<60} {'size':>10} {'peak RSS':>10} {'time':>7}  result")
        for name, path in cases.items():
            peak, seconds, said = run(path)
            size = path.stat().st_size / MB
            print(f"{name:<60} {size:>7.1f} MB {peak:>7.1f} MB {seconds:>6.2f}s  {said[:150]}")


if __name__ == "__main__":
    main()
