"""Streaming a result to a path or a binary file: a broken connection resumes with `Range` (and
`If-Range` on the ETag, so a changed file starts over), an expired link is fetched anew, and the
bytes written must add up to the length the server declared."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import IO, Awaitable  # noqa: UP035 (scripts/gen_sync.py maps it to Union)
from urllib.parse import unquote

import httpx

from .._backend_async import sleep
from .._errors import QuireConnectionError, QuireError, problem_error
from ._transport import AsyncTransport

log = logging.getLogger("quire")

Target = str | os.PathLike[str] | IO[bytes]
# A link expires after QUIRE_DOWNLOAD_LINK_TTL_MS (15 min by default); a slow download asks again.
MAX_RELINKS = 3
_CONTENT_RANGE = re.compile(r"bytes (\d+)-\d+/(\d+)")


class _Sink:
    def __init__(self, to: Target) -> None:
        self.path = str(to) if isinstance(to, (str, os.PathLike)) else None
        self._own = self.path is not None
        self.file: IO[bytes] = open(Path(self.path), "wb") if self.path else to  # type: ignore[assignment]
        self.start = 0 if self._own else self._tell()

    def _tell(self) -> int:
        try:
            return self.file.tell()
        except (OSError, ValueError):
            return 0

    def restart(self) -> None:
        """The server sent the whole file again: drop what was written so far."""
        self.file.seek(self.start)
        self.file.truncate()

    def close(self) -> None:
        if self._own:
            self.file.close()


def disposition_name(header: str | None) -> str | None:
    """The file name of a `Content-Disposition` (`filename*` first, RFC 6266), if any."""
    if not header:
        return None
    star = re.search(r"filename\*=UTF-8''([^;]+)", header, re.IGNORECASE)
    if star:
        return unquote(star.group(1))
    plain = re.search(r'filename="([^"]*)"', header, re.IGNORECASE)
    return plain.group(1) if plain else None


async def write_answer(response: httpx.Response, to: Target) -> int:
    """Writes an answer's streamed body to `to`; the byte count, checked against `Content-Length`."""
    sink = _Sink(to)
    written = 0
    try:
        async for chunk in response.aiter_bytes():
            sink.file.write(chunk)
            written += len(chunk)
        length = response.headers.get("content-length")
        if length is not None and written != int(length):
            raise QuireConnectionError(f"result: received {written} bytes of {length}", retryable=True)
        sink.file.flush()
        return written
    finally:
        sink.close()


async def stream_to(
    transport: AsyncTransport,
    link: Callable[[], Awaitable[str]],
    to: Target,
    *,
    keyed: bool = False,
) -> int:
    """Writes what `link()` points at to `to`; returns the byte count. `keyed` links are API routes
    (sent the key, as the batch ZIP is); the others are temporary links, never sent the key."""
    sink = _Sink(to)
    budget = transport.budget()
    http = transport.http if keyed else transport.links
    try:
        url = await link()
        written, total, etag = 0, None, None
        relinks = 0
        while True:
            headers = {"Accept-Encoding": "identity", **(transport.auth_headers() if keyed else {})}
            if written:
                headers["Range"] = f"bytes={written}-"
                if etag:
                    headers["If-Range"] = etag
            try:
                async with http.stream("GET", transport.url(url), headers=headers) as response:
                    if response.status_code == 403 and not keyed and relinks < MAX_RELINKS:
                        await response.aread()
                        relinks += 1
                        url = await link()  # the temporary link expired (link_invalid): a new one
                        continue
                    if response.status_code >= 400:
                        await response.aread()
                        raise problem_error(response.status_code, response.content, response.headers.get("x-request-id"))
                    if response.status_code == 206:
                        found = _CONTENT_RANGE.match(response.headers.get("content-range", ""))
                        if not found or int(found.group(1)) != written:
                            raise QuireError("download: the server resumed at another offset")
                        total = int(found.group(2))
                    else:
                        if written:
                            sink.restart()
                            written = 0
                        length = response.headers.get("content-length")
                        total = int(length) if length is not None else None
                    etag = response.headers.get("etag") or etag
                    async for chunk in response.aiter_bytes():
                        sink.file.write(chunk)
                        written += len(chunk)
            except httpx.TransportError as exc:
                delay = budget.next_delay(None)
                if delay is None:
                    raise QuireConnectionError(f"download: {type(exc).__name__}: {exc}", retryable=True) from None
                log.info("quire: download broke after %d bytes (%s); resuming in %.2fs", written, type(exc).__name__, delay)
                await sleep(delay)
                continue
            if total is not None and written != total:
                raise QuireError(f"download: received {written} bytes of {total}")
            sink.file.flush()
            return written
    finally:
        sink.close()
