"""Public pages. arXiv ids may hold a slash (old style), hence the regex routes."""

from django.urls import path, re_path

from . import views

_ID = r"(?P<arxiv_id>[A-Za-z0-9.\-]+(?:/[0-9]+)?(?:v[0-9]+)?)"

urlpatterns = [
    re_path(rf"^paper/{_ID}/citation-record\.json$", views.citation_record_json, name="citation-record-json"),
    re_path(rf"^paper/{_ID}/citation-record$", views.citation_record_page, name="citation-record"),
    re_path(rf"^paper/{_ID}/integrity\.json$", views.integrity_json, name="integrity-json"),
    re_path(rf"^paper/{_ID}/integrity$", views.integrity_page, name="integrity"),
    re_path(rf"^paper/{_ID}$", views.paper_page, name="paper"),
    path("evidence", views.evidence_page, name="evidence"),
    path("healthz", views.healthz, name="healthz"),
]
