"""Print precision/recall of linked identifiers and a confusion table of states.

    python bench/eval_resolve.py [--mistakes]

Runs against a throwaway test database (DATABASE_URL's server, or the embedded one), loads
tests/resolution/fixtures/eval_*.jsonl, resolves the labelled references offline.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ["CITEREC_OFFLINE"] = "1"


def main() -> None:
    import django

    django.setup()
    from django.db import connection

    from tests.resolution.evaluation import evaluate, load_catalogue

    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        load_catalogue()
        result = evaluate()
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)
    print(f"references: {result.total}, resolvable: {result.resolvable}, linked: {result.linked}")
    print(f"precision of linked identifiers: {result.precision:.4f} (target >= 0.995)")
    print(f"recall of resolvable references: {result.recall:.4f} (target >= 0.97)")
    print(f"author fragments, venues, URLs verified: {len(result.forbidden_verified)} (target 0)")
    print()
    print(result.table())
    if "--mistakes" in sys.argv:
        print()
        for mistake in result.mistakes:
            print(mistake)


if __name__ == "__main__":
    main()
