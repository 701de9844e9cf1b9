"""Run bench_api.py and bench_parse.py for an earlier revision and for this checkout, interleaved,
in one run on one machine, and print both sides' figures.

Usage: python bench/before_after.py [--before 70df007] [--rounds 2] [--seconds 10]

The earlier revision is checked out (git worktree, detached) under bench/.data/before-<rev> with
its own virtualenv from its own pinned dependencies (`make install` there), so each side runs its
own code, server and libraries. Rounds alternate the order (after then before, then before then
after), so a change in the machine's load falls on both sides. 70df007 is main as it stood when
issue 14 was filed.
Each side's API benchmark uses its own throwaway database. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The lines of each benchmark's output that carry its figures.
API_LINES = re.compile(r"^(record|observation list|gunicorn|Procfile).*$", re.M)
PARSE_LINES = re.compile(r"^.*(refs/s|corpus).*$", re.M)
# A pause before each benchmark, for the previous one's server and database to finish exiting.
SETTLE_SECONDS = 5


def checkout(rev: str) -> Path:
    """Return a worktree of rev with its own installed virtualenv (made once, then reused)."""
    tree = REPO / "bench" / ".data" / f"before-{rev}"
    if not tree.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev], cwd=REPO, check=True)
    subprocess.run(["make", "install"], cwd=tree, check=True, stdout=subprocess.DEVNULL)
    return tree


def run(tree: Path, script: str, args: list[str]) -> str:
    """Run one benchmark of one tree with that tree's own interpreter; return its output."""
    env = {**os.environ, "DATABASE_URL": _server_url()}
    command = [str(tree / ".venv" / "bin" / "python"), f"bench/{script}", *args]
    time.sleep(SETTLE_SECONDS)
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        return f"(failed, rc {done.returncode})\n{done.stderr[-1500:]}"
    return done.stdout


def _server_url() -> str:
    """The PostgreSQL server the API benchmarks make their databases on (its `postgres` db)."""
    url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
    return url.rsplit("/", 1)[0] + "/postgres"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="70df007", help="the earlier revision")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=10, help="bench_api load per endpoint")
    args = parser.parse_args()
    sides = {"after": REPO, f"before ({args.before})": checkout(args.before)}
    api_args = ["--seconds", str(args.seconds)]
    for round_ in range(1, args.rounds + 1):
        # ABBA: odd rounds run "after" first, even rounds "before" first, so neither side always
        # follows the other's API run (a web server and a dropped database winding down).
        order = list(sides.items()) if round_ % 2 else list(sides.items())[::-1]
        for name, tree in order:
            # The earlier bench_api always uses its fixed database name; this one is told another.
            mine = ["--database", "citerec_bench_ba_after"] if tree == REPO else []
            api = run(tree, "bench_api.py", api_args + mine)
            print(f"== round {round_}, {name}: bench_api.py (load {_load()})", flush=True)
            print("\n".join(_lines(API_LINES, api)) or api)
        for name, tree in order:
            parse = run(tree, "bench_parse.py", [])
            print(f"== round {round_}, {name}: bench_parse.py (load {_load()})", flush=True)
            print("\n".join(_lines(PARSE_LINES, parse)) or parse, flush=True)


def _lines(pattern: re.Pattern[str], text: str) -> list[str]:
    return [m.group(0) for m in pattern.finditer(text)]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
