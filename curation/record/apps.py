"""The record app: its one table holds each record's version (see migrations/0001_initial.py)."""

from django.apps import AppConfig


class RecordConfig(AppConfig):
    name = "curation.record"
    label = "record"
    verbose_name = "Citation records"
