"""Cursors that bind parameters on the server, so that PostgreSQL prepares what runs often.

Django's own cursors bind on the client (every statement is sent as text with its values
quoted in, then parsed and planned anew); psycopg never prepares those. A server-bound
cursor's statement is prepared after a few runs on one connection (settings DATABASES
OPTIONS prepare_threshold), after which the server skips parsing and planning. Worth it for
statements of one text run on every request or every resolver batch: the record version read
(0.19 -> 0.07 ms of PostgreSQL CPU), a page's digest (1.4 of 3 ms was planning), the
resolver's catalogue and version-set reads (1.0 ms of planning a batch for the latter).

While queries are logged (DEBUG, tests counting statements) Django's own cursor is returned:
psycopg drops a prepared statement's text, which the log would then miss. Prepared statements
live on one server connection: fine with direct connections; a transaction-mode pooler would
need prepared-statement support.

The cursor reads where the ORM would read (citerec/replica.py): a record's version and its body,
a page's digest and its rows, come from the same server.
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.db import connections
from django.db.backends.utils import CursorWrapper

from citerec.replica import read_alias


def server_bound_cursor() -> CursorWrapper:
    """Return a Django cursor over a psycopg cursor that binds parameters on the server.

    The wrapper is Django's, so errors are handled as for any cursor. Parameters are psycopg's
    (%s, %(name)s; %% for a literal %), bound as values: a list becomes an array parameter.
    """
    connection = connections[read_alias()]
    connection.ensure_connection()
    if connection.queries_logged:
        return connection.cursor()
    raw: Any = psycopg.Cursor(connection.connection)  # django-stubs expect a wrapper here
    return connection.make_cursor(raw)
