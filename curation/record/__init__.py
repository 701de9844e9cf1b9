"""The citation record (pith.paper-citation-record.v1): built, checked, encoded and served here.

builder        the v1 document from stored data (the one place the format is made)
canonical      canonical JSON and both digests
timestamps     the record's three timestamp formats
schema         the v1 JSON Schema; input_checks: the checks an imported file passes first
cache          built bytes cached under the record's version
http           conditional responses (ETag, 304) shared by the pages and the API
"""
