"""The API's JSON parser: DRF's, with nesting too deep to parse refused as a bad request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """Parse JSON; a document nested past Python's recursion limit is a 400, not a 500.

    DRF turns the ValueError of malformed JSON into a ParseError, but the json module raises
    RecursionError for `[[[[...` thousands deep, which DRF lets through as a server error.
    """

    def parse(
        self, stream: IO[Any], media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:  # fmt: skip
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the document is nested too deeply") from exc
