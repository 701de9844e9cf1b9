"""Run callers at the same moment, each in a thread with its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls at the same moment, one thread (so one connection) each; return results.

    A call's result is what it returned or the exception it raised.
    """
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(n: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[n] = call()
        except Exception as exc:  # noqa: BLE001 - the test inspects what each caller got
            results[n] = exc
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=(n, c)) for n, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a caller never finished (deadlock?)"
    return results
