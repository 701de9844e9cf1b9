"""Test settings: the project's settings with the development security defaults.

`manage.py check --deploy` with production values is tested separately (tests/test_settings.py).
"""

import os

os.environ.setdefault("DEBUG", "1")

from citerec.settings import *  # noqa: E402,F403

# Tests run tasks in process; the real-worker test sends its task to the broker explicitly.
CELERY_TASK_ALWAYS_EAGER = True

# One test database per test process: several runs on one server (developers, helpers, CI)
# must not drop each other's database mid-run.
DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}  # noqa: F405

# With REPLICA_DATABASE_URL set, the replica alias reads the test database too.
if "replica" in DATABASES:  # noqa: F405
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}  # noqa: F405
