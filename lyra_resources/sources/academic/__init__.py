"""Live academic sources: Semantic Scholar and OpenAlex over async httpx.

- ``policy``: the shared client (rate limit, retries honouring Retry-After, timeouts, cache use);
- ``cache``: the on-disk answer cache that makes re-runs reproducible and offline;
- ``semantic_scholar`` / ``openalex``: one client per API, pydantic models → PaperRecord;
- ``gather``: search, identifier completion and citation links across both at once;
- ``clients``: building the clients from settings and the environment.
"""

from lyra_resources.sources.academic.base import AcademicSource, CitationLink, LinkResult, lookup_id
from lyra_resources.sources.academic.cache import HttpCache
from lyra_resources.sources.academic.clients import open_sources, openalex_policy, s2_policy
from lyra_resources.sources.academic.errors import (
    AcademicApiError,
    ApiStatusError,
    MalformedResponse,
    SourceUnreachable,
)
from lyra_resources.sources.academic.openalex import OAWork, OpenAlexClient
from lyra_resources.sources.academic.policy import ApiClient, HttpPolicy, RateLimiter
from lyra_resources.sources.academic.semantic_scholar import SemanticScholarClient

__all__ = [
    "AcademicApiError", "AcademicSource", "ApiClient", "ApiStatusError", "CitationLink", "HttpCache", "HttpPolicy",
    "LinkResult", "MalformedResponse", "OAWork", "OpenAlexClient", "RateLimiter", "SemanticScholarClient",
    "SourceUnreachable", "lookup_id", "open_sources", "openalex_policy", "s2_policy",
]
