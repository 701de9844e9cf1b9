"""REST API routes, versioned under /api/v1/ (issue 7 fills them out)."""

from django.urls import re_path

from curation import views

app_name = "api"

urlpatterns = [
    # The record document, byte-identical to /paper/<id>/citation-record.json.
    re_path(
        r"^v1/records/(?P<arxiv_id>[A-Za-z0-9.\-]+(?:/[0-9]+)?(?:v[0-9]+)?)$",
        views.citation_record_json,
        name="record",
    ),
]
