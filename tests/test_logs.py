"""Structured logs carry the message and any extra fields as JSON."""

import json
import logging

from citerec.logs import JsonFormatter


def test_json_formatter_includes_extra_fields() -> None:
    record = logging.LogRecord("citerec.test", logging.INFO, __file__, 1, "resolved %d", (3,), None)
    record.task_id = "abc"
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "resolved 3"
    assert line["level"] == "INFO" and line["logger"] == "citerec.test"
    assert line["task_id"] == "abc"
