"""What differs between the async and the sync client beyond `await`: sleeping and blocking calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")


async def sleep(seconds: float) -> None:
    await anyio.sleep(seconds)


async def run_blocking(fn: Callable[[], T]) -> T:
    """A blocking call (tuspy's uploader) on a worker thread, so the event loop keeps running."""
    return await anyio.to_thread.run_sync(fn)
