"""WSGI entry point (the Procfile's granian serves it; runserver too, through WSGI_APPLICATION).

Only web processes load this module, so it is where their database statements get a time limit
(WEB_STATEMENT_TIMEOUT_MS, citerec/statement_timeout.py); workers and commands never load it.
Record revalidations (If-None-Match on a record's URLs) are answered in front of Django's
handler: see curation/record/revalidation.py.
"""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from citerec.statement_timeout import limit_statements

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")

# Before the first connection: the limit is one of the connection's startup options.
limit_statements(settings.DATABASES, settings.WEB_STATEMENT_TIMEOUT_MS)

django_application = get_wsgi_application()

from curation.record.revalidation import RecordRevalidation  # noqa: E402  (needs Django set up)

application = RecordRevalidation(django_application)
