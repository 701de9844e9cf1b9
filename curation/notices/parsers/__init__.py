"""The notice parsers: what a source answered (Crossref JSON, a Retraction Watch CSV row, arXiv
metadata) read into events of the vocabulary in curation/notice_events.py. Pure: no Django
model, no network, no clock."""
