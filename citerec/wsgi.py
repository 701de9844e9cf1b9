"""WSGI entry point (gunicorn citerec.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "citerec.settings")

application = get_wsgi_application()
