"""What differs between the async and the sync client beyond `await`: sleeping and blocking calls."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def run_blocking(fn: Callable[[], T]) -> T:
    return fn()
