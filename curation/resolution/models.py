"""Resolution models (catalogue of Crossref works, runs, verdicts)."""
