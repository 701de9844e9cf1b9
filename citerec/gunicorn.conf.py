"""gunicorn settings shared by the Procfile's web process and bench/bench_api.py (one place).

Threaded workers keep connections alive: a client revalidating records (mirrors, API
consumers) reuses its connection instead of paying a TCP handshake per 304. Two processes
match the two cores; threads let a process overlap database waits.
"""

import os

workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "4"))
keepalive = 5  # seconds an idle kept-alive connection waits for its next request
timeout = 60
