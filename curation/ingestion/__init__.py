"""Papers in from arXiv: metadata harvest, e-print sources, reference lists, records (issue 24)."""
