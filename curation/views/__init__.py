"""Public pages: records, papers, integrity findings, evidence, and the health check."""

from .evidence import evidence_page
from .health import healthz
from .integrity import integrity_json, integrity_page
from .papers import paper_page
from .records import citation_record_json, citation_record_page

__all__ = [
    "citation_record_json",
    "citation_record_page",
    "evidence_page",
    "healthz",
    "integrity_json",
    "integrity_page",
    "paper_page",
]
