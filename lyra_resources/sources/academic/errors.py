"""Errors of the academic API clients. Each names the API and the endpoint that failed."""

from __future__ import annotations


class AcademicApiError(RuntimeError):
    """An academic API did not give a usable answer."""

    def __init__(self, api: str, endpoint: str, reason: str) -> None:
        self.api = api
        self.endpoint = endpoint
        self.reason = reason
        super().__init__(f"{api} {endpoint}: {reason}")


class SourceUnreachable(AcademicApiError):
    """No connection could be made (no network, DNS failure, refused): not worth retrying."""


class ApiStatusError(AcademicApiError):
    """The API answered with an error status (after the retries allowed for 429 and 5xx)."""

    def __init__(self, api: str, endpoint: str, reason: str, status: int | None = None) -> None:
        self.status = status
        super().__init__(api, endpoint, reason)


class MalformedResponse(AcademicApiError):
    """The API answered 200 with a body that is not the documented shape."""
