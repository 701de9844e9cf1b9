"""Measure the curator's flow in a real browser: actions and seconds per decision, page widths.

Usage: python bench/bench_curator_flow.py [pytest options]

It runs the Playwright scenario tests/admin/test_curator_flow.py (Debian's Chromium, headless, at
/usr/bin/chromium or $CHROMIUM) on the test database of the configured server (DATABASE_URL,
else the embedded PostgreSQL): 50 references needing decisions of five kinds (accept the top
candidate, accept another candidate, link by arXiv id, no canonical record, confirm
parse_uncertain), worked from the "to fix" queue by keyboard and save-and-next. Every key press,
click and filled field counts as one action; page loads do not. Seconds are wall time from
opening the first reference to the last decision, browser and server included (a machine's
figure, not a person's reading time). Widths are document.documentElement.scrollWidth of each
curator screen (queue, observation page, history, admin index, notice queue and review) in a
1,280 px and a 390 px window (tests/admin/test_notice_review_page.py adds the notice pages). Prints the figures; the scenario itself
asserts every outcome in the database and the history, and fails above 2 actions per decision
or on a page wider than its window. The group scenario (tests/admin/test_browser_groups.py)
decides a group of references citing one work in two spellings across four papers, once per
window width, and adds the decisions per citation settled (one decision for the whole group)
and the group screens' widths.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The scenario first (it writes the figures), then the notice review page (adds its widths),
# then the group queue (adds its decisions, the citations they settled, and its widths).
SCENARIO = [
    "tests/admin/test_curator_flow.py",
    "tests/admin/test_notice_review_page.py",
    "tests/admin/test_browser_groups.py",
]


def main() -> int:
    """Run the scenario and print its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        env = {**os.environ, "CURATOR_FLOW_FIGURES": str(out)}
        command = [sys.executable, "-m", "pytest", *SCENARIO, "-q", "-p", "no:cacheprovider"]
        run = subprocess.run(
            [*command, *sys.argv[1:]], cwd=REPO, env=env, capture_output=True, text=True
        )
        if not out.exists():
            sys.stdout.write(run.stdout[-4000:] + run.stderr[-2000:])
            print("the scenario wrote no figures", file=sys.stderr)
            return run.returncode or 1
        figures = json.loads(out.read_text())
    print(f"decisions             {figures['decisions']}")
    print(f"actions               {figures['actions']}")
    print(f"actions per decision  {figures['actions_per_decision']}  (target <= 2)")
    print(f"seconds per decision  {figures['seconds_per_decision']}")
    if figures.get("group_citations_settled"):
        decided, settled = figures["group_decisions"], figures["group_citations_settled"]
        print(f"group decisions       {decided}, settling {settled} citations")
        print(f"decisions per citation settled  {decided / settled:.3f}  (one per reference: 1)")
    print("page widths (px) in a 1,280 / 390 px window:")
    for name, widths in figures["page_widths"].items():
        print(f"  {name:<15} {widths['1280']:>5} / {widths['390']:>4}")
    print("scenario " + ("passed" if run.returncode == 0 else f"FAILED (exit {run.returncode})"))
    return run.returncode


if __name__ == "__main__":
    raise SystemExit(main())
