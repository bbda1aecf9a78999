"""When to retry a request and how long to wait: `Retry-After` first, else jittered exponential
back-off, both within a budget of attempts and seconds (docs/api.md §4, §5)."""

from __future__ import annotations

import email.utils
import random
import re
import time
from dataclasses import dataclass, field

import httpx

from ._models import RateLimit

# 5xx answers worth another attempt: the server releases an Idempotency-Key on them (§4), so a
# retried POST cannot run twice. 501 (not implemented) would answer the same again.
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
# A 409 is retried only for this code: the first request with the key is still running (§4).
IN_FLIGHT_CODE = "idempotency_key_in_use"
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0


@dataclass
class RetryBudget:
    """One request's retries: at most `max_retries` more attempts and `max_wait_s` seconds of waiting."""

    max_retries: int
    max_wait_s: float
    attempts: int = 0
    waited_s: float = 0.0
    started: float = field(default_factory=time.monotonic)

    def next_delay(self, retry_after_s: float | None) -> float | None:
        """Seconds to wait before the next attempt, or None when the budget is spent."""
        if self.attempts >= self.max_retries:
            return None
        if retry_after_s is not None:
            # A little jitter on top, so clients told the same second do not come back together.
            delay = retry_after_s + random.uniform(0, min(1.0, retry_after_s / 4 + 0.1))
        else:
            delay = random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2**self.attempts))
        if self.waited_s + delay > self.max_wait_s:
            return None
        self.attempts += 1
        self.waited_s += delay
        return delay


def retry_after_seconds(response: httpx.Response) -> float | None:
    """`Retry-After` as seconds (delta-seconds or an HTTP date, RFC 9110 §10.2.3), if sent."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def should_retry_status(response: httpx.Response) -> bool:
    if response.status_code in RETRYABLE_STATUSES:
        return True
    if response.status_code == 409:
        try:
            return bool(response.json().get("code") == IN_FLIGHT_CODE)
        except ValueError:
            return False
    return False


_POLICY = re.compile(r'^\s*"?([^";]*)"?')


def _param(value: str, name: str) -> int | None:
    found = re.search(rf";\s*{name}=(\d+)", value)
    return int(found.group(1)) if found else None


def parse_rate_limit(headers: httpx.Headers) -> RateLimit | None:
    """The `RateLimit` and `RateLimit-Policy` fields (`"default";r=598;t=41`, `"default";q=600;w=60`)."""
    current = headers.get("ratelimit")
    policy = headers.get("ratelimit-policy", "")
    if current is None:
        return None
    name = _POLICY.match(current)
    return RateLimit(
        policy=name.group(1) if name else "",
        remaining=_param(current, "r"),
        reset_seconds=_param(current, "t"),
        quota=_param(policy, "q"),
        window_seconds=_param(policy, "w"),
    )
