"""The network clients: they ask, return what was answered, and write no model.

arxiv       OAI-PMH metadata (arXivRaw), e-prints and the content-addressed source store
crossref    the Crossref REST API: polite, rate-limited across workers, cached, offline-aware
grobid      GROBID's reference extraction from a PDF (for papers with no LaTeX source)
"""
