"""Reads of the catalogue (the arXiv snapshot and Crossref works): its records and their
candidates (`records`), how titles are keyed (`text`), which words narrow a title search
(`selectivity`) and which arXiv paper was published under which DOI (`versions`).

Below every app that asks it: the resolver, the notices (the published DOI of an arXiv work),
the record and the API (which version a link shows), a curator's fetched link. It reads the
tables `curation.resolution` owns (its models, written only by its catalogue-import service)
and writes nothing.
"""
