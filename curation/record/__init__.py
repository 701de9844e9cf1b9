"""The citation record (pith.paper-citation-record.v1): built, checked, encoded and served here.

builder        the v1 document from stored data (the one place the format is made)
canonical      canonical JSON and both digests
timestamps     the record's three timestamp formats
schema         the v1 JSON Schema; input_checks: the checks an imported file passes first
models         each record's version, bumped by database triggers (migrations/0001_initial.py)
selectors      what a record is built from (its statement budget), its version (one statement
               per request), which records changed since when
cache          built bytes and digest cached under the record's version and day
http           the one response path of the page, the .json URL and the API (ETag, 304)
revalidation   WSGI wrapper: revalidations answered with 304 in front of Django
"""
