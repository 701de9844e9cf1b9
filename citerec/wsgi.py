"""WSGI entry point (the Procfile's granian serves it; runserver too, through WSGI_APPLICATION).

Record revalidations (If-None-Match on a record's URLs) are answered in front of Django's
handler: see curation/record/revalidation.py.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")

django_application = get_wsgi_application()

from curation.record.revalidation import RecordRevalidation  # noqa: E402  (needs Django set up)

application = RecordRevalidation(django_application)
