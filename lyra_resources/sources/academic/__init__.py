"""Live academic sources over async httpx (built in: Semantic Scholar and OpenAlex).

- ``registry``: the sources Lyra asks, by name, in order; each declared by its own module;
- ``policy``: the shared client (rate limit, retries honouring Retry-After, timeouts, cache use);
- ``cache``: the on-disk answer cache that makes re-runs reproducible and offline;
- ``semantic_scholar`` / ``openalex``: one module per API (its client, pydantic models →
  PaperRecord, its policy and its ``SOURCE_SPEC``);
- ``gather``: search, identifier completion and citation links across all sources at once;
- ``clients``: building every registered source's client from settings and the environment.
"""

from lyra_resources.sources.academic.base import AcademicSource, CitationLink, LinkResult, lookup_id
from lyra_resources.sources.academic.cache import HttpCache
from lyra_resources.sources.academic.clients import open_sources
from lyra_resources.sources.academic.errors import (
    AcademicApiError,
    ApiStatusError,
    MalformedResponse,
    SourceUnreachable,
)
from lyra_resources.sources.academic.openalex import OAWork, OpenAlexClient, openalex_policy
from lyra_resources.sources.academic.policy import ApiClient, HttpPolicy, RateLimiter
from lyra_resources.sources.academic.registry import (
    AcademicSourceSpec,
    academic_sources,
    register,
    source_names,
)
from lyra_resources.sources.academic.semantic_scholar import SemanticScholarClient, s2_policy

__all__ = [
    "AcademicApiError",
    "AcademicSource",
    "AcademicSourceSpec",
    "ApiClient",
    "ApiStatusError",
    "CitationLink",
    "HttpCache",
    "HttpPolicy",
    "LinkResult",
    "MalformedResponse",
    "OAWork",
    "OpenAlexClient",
    "RateLimiter",
    "SemanticScholarClient",
    "SourceUnreachable",
    "academic_sources",
    "lookup_id",
    "open_sources",
    "openalex_policy",
    "register",
    "s2_policy",
    "source_names",
]
