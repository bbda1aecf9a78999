"""Every API request of the client: the key, an Idempotency-Key on each POST, retries of
network errors, 409 in flight, 429 and 5xx within the budget, and the latest RateLimit headers."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from typing import Any

import httpx

from .._backend_async import sleep
from .._errors import QuireConnectionError, QuireError, problem_error
from .._inputs import PartValue
from .._models import RateLimit
from .._retry import RetryBudget, parse_rate_limit, retry_after_seconds, should_retry_status

log = logging.getLogger("quire")


def transport_retry_delay(budget: RetryBudget, method: str, path: str, exc: httpx.TransportError) -> float:
    """The wait before retrying after a network error, or QuireConnectionError once the budget is spent."""
    delay = budget.next_delay(None)
    if delay is None:
        raise QuireConnectionError(f"{method} {path}: {type(exc).__name__}: {exc}", retryable=True) from None
    log.info("quire: retrying %s %s in %.2fs after %s", method, path, delay, type(exc).__name__)
    return delay

PartsFactory = Callable[[ExitStack], list[tuple[str, PartValue]]]


class AsyncTransport:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: httpx.Timeout,
        max_retries: int,
        retry_budget_s: float,
        http_client: httpx.AsyncClient | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.retry_budget_s = retry_budget_s
        self.timeout = timeout
        # httpx masks Authorization in its reprs; X-API-Key it would not.
        self._auth = {"Authorization": f"Bearer {api_key}"}
        self._own_http = http_client is None
        self.http = http_client or httpx.AsyncClient(timeout=timeout)
        # Temporary download links are capabilities (and may point at S3): never send them the key.
        self.links = httpx.AsyncClient(timeout=timeout, follow_redirects=False)
        self.rate_limit: RateLimit | None = None

    def url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else self.base_url + path

    def auth_headers(self) -> dict[str, str]:
        return dict(self._auth)

    def budget(self) -> RetryBudget:
        return RetryBudget(self.max_retries, self.retry_budget_s)

    def note(self, response: httpx.Response) -> None:
        parsed = parse_rate_limit(response.headers)
        if parsed is not None:
            self.rate_limit = parsed

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        parts: PartsFactory | None = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        timeout: httpx.Timeout | None = None,
    ) -> httpx.Response:
        """The answer to a request, retried while retrying is safe and the budget lasts; a refusal
        raises `QuireError`. A POST or PUT always carries an Idempotency-Key, the same on every attempt."""
        sent = {**self._auth, **(headers or {})}
        if method in ("POST", "PUT"):
            sent["Idempotency-Key"] = idempotency_key or f"quire-py-{uuid.uuid4()}"
        budget = self.budget()
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        while True:
            try:
                with ExitStack() as files:
                    response = await self.http.request(
                        method,
                        self.url(path),
                        params=clean,
                        json=json,
                        files=parts(files) if parts else None,
                        headers=sent,
                        timeout=timeout or self.timeout,
                    )
            except httpx.TransportError as exc:
                await sleep(transport_retry_delay(budget, method, path, exc))
                continue
            self.note(response)
            if response.status_code < 400:
                return response
            if should_retry_status(response):
                delay = budget.next_delay(retry_after_seconds(response))
                if delay is not None:
                    log.info("quire: retrying %s %s in %.2fs after %d", method, path, delay, response.status_code)
                    await sleep(delay)
                    continue
            raise problem_error(response.status_code, response.content, response.headers.get("x-request-id"))

    async def send_streamed(
        self,
        method: str,
        path: str,
        *,
        parts: PartsFactory,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        timeout: httpx.Timeout | None = None,
        final: Callable[[QuireError], bool] | None = None,
    ) -> httpx.Response:
        """As `request`, but a 2xx answer's body is left unread: the caller streams it (`aiter_bytes`)
        and closes it. `final` marks refusals that another attempt would only repeat."""
        sent = {**self._auth, **(headers or {}), "Idempotency-Key": idempotency_key or f"quire-py-{uuid.uuid4()}"}
        budget = self.budget()
        while True:
            try:
                with ExitStack() as files:
                    request = self.http.build_request(
                        method, self.url(path), files=parts(files), headers=sent, timeout=timeout or self.timeout
                    )
                    response = await self.http.send(request, stream=True)
            except httpx.TransportError as exc:
                await sleep(transport_retry_delay(budget, method, path, exc))
                continue
            self.note(response)
            if response.status_code < 400:
                return response
            await response.aread()
            await response.aclose()
            error = problem_error(response.status_code, response.content, response.headers.get("x-request-id"))
            if not (final and final(error)) and should_retry_status(response):
                delay = budget.next_delay(retry_after_seconds(response))
                if delay is not None:
                    log.info("quire: retrying %s %s in %.2fs after %d", method, path, delay, response.status_code)
                    await sleep(delay)
                    continue
            raise error

    async def aclose(self) -> None:
        if self._own_http:
            await self.http.aclose()
        await self.links.aclose()
