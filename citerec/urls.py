"""URL routes: the admin, the API with its schemas, and the public record pages.

Requests Django refuses, and uncaught errors, answer JSON under /api/ (citerec/error_pages.py).
"""

from django.contrib import admin
from django.urls import include, path

from api.views.records import RecordSchemaView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path(
        "schema/pith.paper-citation-record.v1.json",
        RecordSchemaView.as_view(),
        name="record-schema",
    ),
    path("", include("curation.urls")),
]

handler400 = "citerec.error_pages.bad_request"
handler500 = "citerec.error_pages.server_error"
