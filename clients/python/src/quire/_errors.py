"""The SDK's error types: every refusal keeps the server's problem document (RFC 9457) whole."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# Codes the server marks retryable in its catalogue are also sent as `retryable`; these are the
# statuses worth retrying when a body carries no such hint (docs/errors.md).
_RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class FieldError:
    """One entry of a problem's `errors[]`: where (`pointer` into the request or a part `field`) and why."""

    detail: str
    pointer: str | None = None
    field: str | None = None


class QuireError(Exception):
    """A refusal from the API, or a job that ended failed or canceled.

    `problem` is the server's document as received; the API key is never part of it (the server
    never echoes it) nor of this error's message or repr.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        title: str | None = None,
        detail: str | None = None,
        errors: tuple[FieldError, ...] = (),
        retryable: bool = False,
        request_id: str | None = None,
        problem: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors
        self.retryable = retryable
        self.request_id = request_id
        self.problem: dict[str, Any] = problem or {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, request_id={self.request_id!r})"


class QuireConnectionError(QuireError):
    """The server could not be reached or the connection broke, after the retry budget was spent."""


class QuireTimeoutError(QuireError):
    """A wait given an explicit timeout ran out before the job ended (the job goes on)."""


class JobFailedError(QuireError):
    """`run`/`download` on a job that failed or was canceled; `job` is the job as it ended."""

    def __init__(self, message: str, *, job: Any, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.job = job


def problem_error(status: int, body: bytes, request_id: str | None) -> QuireError:
    """The typed error for an answer of `status` whose body should be problem+json."""
    try:
        parsed = json.loads(body) if body else {}
    except ValueError:
        parsed = {}
    problem: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
    errors = tuple(
        FieldError(
            detail=str(e.get("detail", "")),
            pointer=e.get("pointer") if isinstance(e.get("pointer"), str) else None,
            field=e.get("field") if isinstance(e.get("field"), str) else None,
        )
        for e in problem.get("errors", [])
        if isinstance(e, dict)
    )
    code = problem.get("code") if isinstance(problem.get("code"), str) else None
    title = problem.get("title") if isinstance(problem.get("title"), str) else None
    detail = problem.get("detail") if isinstance(problem.get("detail"), str) else None
    retryable = problem.get("retryable")
    rid = problem.get("request_id") if isinstance(problem.get("request_id"), str) else request_id
    summary = f"{status} {code or 'error'}: {detail or title or 'no problem document'}"
    if rid:
        summary += f" (request {rid})"
    return QuireError(
        summary,
        status=status,
        code=code,
        title=title,
        detail=detail,
        errors=errors,
        retryable=retryable if isinstance(retryable, bool) else status in _RETRYABLE_STATUSES,
        request_id=rid,
        problem=problem,
    )
