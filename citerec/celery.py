"""Celery application: named queues, Read-the-Docs-style reliability defaults."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")

app = Celery("citerec")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
