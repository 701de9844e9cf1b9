"""Admin screens. Curators decide on observations through curation.services, each decision
with a reason; everything else curated is read-only here."""

from . import groups, observations, records  # noqa: F401  (registers the model admins)
