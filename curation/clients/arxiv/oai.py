"""OAI-PMH requests through oaipmh-scythe, on our HTTP client, with strict XML parsing.

Scythe builds the requests (ListRecords arguments; a resumption token alone on follow-up
pages), walks the pages and turns OAI `<error>` codes into exceptions (NoRecordsMatch,
IdDoesNotExist, BadResumptionToken...). It cannot take a transport, a sleep function or a cap
on Retry-After (it sleeps `int(Retry-After)` with `time.sleep`, in this process only), so its
retries stay off and its HTTP client is ours, whose transport applies the shared throttle,
the retries and the User-Agent.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import httpx2
from lxml import etree
from oaipmh_scythe import Scythe
from oaipmh_scythe.config import RetryConfig
from oaipmh_scythe.iterator import OAIResponseIterator
from oaipmh_scythe.response import OAIResponse

from curation.clients.arxiv.errors import ArxivError, ArxivUnavailable

_STRICT = etree.XMLParser(resolve_entities=False, no_network=True)


class StrictResponse(OAIResponse):
    """An OAI-PMH answer parsed once, strictly.

    Scythe parses with recover=True: a page cut short would read as fewer records and no
    resumption token, and the harvest would end early without a word; a maintenance page in
    plain text would parse as None. Here either stops the harvest at the last stored token.
    """

    @cached_property
    def xml(self) -> Any:
        """Return the root element, or raise ArxivUnavailable when the body is not XML."""
        try:
            return etree.fromstring(self.http_response.content, _STRICT)
        except etree.XMLSyntaxError as exc:
            url = self.http_response.request.url
            raise ArxivUnavailable(f"GET {url}: the answer is not well-formed XML ({exc})") from exc


class OaiScythe(Scythe):
    """Scythe sending through a given httpx2 client, one StrictResponse per page."""

    def __init__(self, endpoint: str, http: httpx2.Client) -> None:
        super().__init__(
            endpoint,
            iterator=OAIResponseIterator,
            retry_config=RetryConfig(max_retries=0),  # the transport retries, politely
        )
        self._http = http

    @property
    def client(self) -> httpx2.Client:
        """Return the HTTP client whose transport carries the throttle and retry policy."""
        return self._http

    def close(self) -> None:
        """Leave the HTTP client open: the ArxivClient owns it."""

    def harvest(self, query: dict[str, str]) -> OAIResponse:
        """Send one OAI-PMH request; raise for an HTTP error or an OAI `<error>`."""
        http_response = self.client.get(self.endpoint, params=query)
        if http_response.is_error:  # 429 and 5xx were retried by the transport already
            raise ArxivError(f"GET {http_response.url}: HTTP {http_response.status_code}")
        response = StrictResponse(http_response, params=query)
        response.raise_for_oaipmh_error()
        return response
