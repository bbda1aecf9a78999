"""The retry arithmetic, table-driven: Retry-After in both spellings, the budget of attempts and
seconds, and the RateLimit header fields."""

from __future__ import annotations

import email.utils
import time

import httpx
import pytest

from quire._retry import RetryBudget, parse_rate_limit, retry_after_seconds, should_retry_status


@pytest.mark.parametrize(
    ("header", "expected"),
    [("3", 3.0), (" 0 ", 0.0), (None, None), ("soon", None)],
)
def test_retry_after_is_read_as_delta_seconds(header: str | None, expected: float | None) -> None:
    headers = {"retry-after": header} if header is not None else {}
    assert retry_after_seconds(httpx.Response(429, headers=headers)) == expected


def test_retry_after_is_read_as_an_http_date() -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    seconds = retry_after_seconds(httpx.Response(503, headers={"retry-after": when}))
    assert seconds is not None and 28 <= seconds <= 31


def test_the_budget_honours_retry_after_with_a_little_jitter_and_stops_when_spent() -> None:
    budget = RetryBudget(max_retries=3, max_wait_s=5)
    first = budget.next_delay(2.0)
    assert first is not None and 2.0 <= first <= 2.6
    assert budget.next_delay(10.0) is None  # would pass the 5 s of waiting allowed
    assert budget.next_delay(None) is not None and budget.next_delay(None) is not None
    assert budget.next_delay(None) is None  # three retries made


@pytest.mark.parametrize(
    ("status", "body", "retried"),
    [
        (429, {"code": "rate_limited"}, True),
        (503, {}, True),
        (409, {"code": "idempotency_key_in_use"}, True),
        (409, {"code": "job_state_conflict"}, False),
        (400, {"code": "invalid_options"}, False),
        (501, {}, False),
    ],
)
def test_only_transient_answers_are_retried(status: int, body: dict[str, str], retried: bool) -> None:
    assert should_retry_status(httpx.Response(status, json=body)) is retried


def test_the_rate_limit_fields_are_parsed() -> None:
    headers = httpx.Headers({"RateLimit": '"default";r=598;t=41', "RateLimit-Policy": '"default";q=600;w=60'})
    limit = parse_rate_limit(headers)
    assert limit is not None
    assert (limit.policy, limit.remaining, limit.reset_seconds, limit.quota, limit.window_seconds) == (
        "default", 598, 41, 600, 60,
    )
    assert parse_rate_limit(httpx.Headers({})) is None
