"""Ingestion: arXiv metadata and e-prints turned into papers, observations and records."""

from django.apps import AppConfig


class IngestionConfig(AppConfig):
    name = "curation.ingestion"
    label = "ingestion"
    default_auto_field = "django.db.models.BigAutoField"
