"""Admin screens. Curated data is read-only here until the curator screens (issue 5) route
every change through curation.services with a reason."""

from . import records  # noqa: F401  (registers the model admins)
