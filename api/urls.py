"""REST API routes, versioned under /api/v1/; unknown API paths get a JSON 404."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .errors import not_found
from .views.curation import ObservationLink, ObservationState
from .views.history import HistoryList
from .views.ingestions import IngestionDetail, IngestionList
from .views.notices import NoticeEventList, NoticeEventReview
from .views.observations import DeletedObservationList, ObservationDetail, ObservationList
from .views.papers import PaperDetail, PaperList
from .views.precision import ResolverPrecisionView
from .views.records import RecordChangesView, RecordView
from .views.root import ApiRoot
from .views.works import CitedWorkDetail, CitedWorkList

app_name = "api"

# Old-style arXiv ids keep their slash (hep-th/9711200); the views check the full shape.
_ID = r"(?P<arxiv_id>[A-Za-z0-9.\-]+(?:/[0-9]+)?(?:v[0-9]+)?)"

urlpatterns = [
    path("", ApiRoot.as_view(), name="root"),
    path("v1/", ApiRoot.as_view(), name="root-v1"),
    path("v1", ApiRoot.as_view(), name="root-v1-bare"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("v1/papers", PaperList.as_view(), name="paper-list"),
    re_path(rf"^v1/papers/{_ID}$", PaperDetail.as_view(), name="paper-detail"),
    path("v1/records", RecordChangesView.as_view(), name="record-list"),
    # The record document, byte-identical to /paper/<id>/citation-record.json.
    re_path(rf"^v1/records/{_ID}$", RecordView.as_view(), name="record"),
    path("v1/ingestions", IngestionList.as_view(), name="ingestion-list"),
    re_path(rf"^v1/ingestions/{_ID}$", IngestionDetail.as_view(), name="ingestion-detail"),
    path("v1/observations", ObservationList.as_view(), name="observation-list"),
    path("v1/observations/deleted", DeletedObservationList.as_view(), name="observation-deleted"),
    path("v1/observations/<uuid:pk>", ObservationDetail.as_view(), name="observation-detail"),
    path("v1/observations/<uuid:pk>/link", ObservationLink.as_view(), name="observation-link"),
    path("v1/observations/<uuid:pk>/state", ObservationState.as_view(), name="observation-state"),
    path("v1/cited-works", CitedWorkList.as_view(), name="citedwork-list"),
    path("v1/cited-works/<int:pk>", CitedWorkDetail.as_view(), name="citedwork-detail"),
    path("v1/notice-events", NoticeEventList.as_view(), name="noticeevent-list"),
    path(
        "v1/notice-events/<int:pk>/review", NoticeEventReview.as_view(), name="noticeevent-review"
    ),
    path("v1/resolver/precision", ResolverPrecisionView.as_view(), name="resolver-precision"),
    re_path(
        r"^v1/history/(?P<kind>[a-z\-]+)/(?P<key>[^?#]{1,80})$",
        HistoryList.as_view(),
        name="history",
    ),
    re_path(r"^[\s\S]*$", not_found),  # any path, newlines included
]
