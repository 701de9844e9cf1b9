"""URL routes: the admin, the public record pages, and the API."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("", include("curation.urls")),
]
