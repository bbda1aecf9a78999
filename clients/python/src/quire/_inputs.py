"""A job's inputs as multipart parts: paths and file objects are streamed by httpx (read 64 KiB at a
time, never whole), URLs become `file_url` parts, uploads `upload_id` parts; files over the tus
threshold are marked for a resumable upload first (docs/api.md §2, §12)."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Union

from ._models import Upload

_UPLOAD_ID = re.compile(r"^upl_[0-9A-Za-z]{10,64}$")


@dataclass(frozen=True)
class FileUrl:
    """An input the worker fetches itself (`file_url`), with headers only its origin receives."""

    url: str
    headers: Mapping[str, str] | None = None

    def part(self) -> str:
        if not self.headers:
            return self.url
        return json.dumps({"url": self.url, "headers": dict(self.headers)})

    def __repr__(self) -> str:  # the URL may be signed: a secret (docs/api.md §2)
        return "FileUrl(<redacted>)"


@dataclass(frozen=True)
class UploadId:
    """A finished tus upload to use as an input; the job consumes it."""

    id: str


@dataclass(frozen=True)
class NamedFile:
    """Bytes or a binary file object with the display name it should have."""

    name: str
    content: bytes | IO[bytes]


Input = Union[str, os.PathLike[str], bytes, IO[bytes], FileUrl, UploadId, Upload, NamedFile]
"""A path, bytes, a binary file object, a `FileUrl` (or an `http(s)://` string), an upload
(`UploadId`, `Upload`, or an `upl_…` string) or a `NamedFile`."""


@dataclass(frozen=True)
class Source:
    """A local input: where its bytes come from, its name and size (None when unknown)."""

    name: str
    path: Path | None
    stream: IO[bytes] | None
    size: int | None


Resolved = Union[Source, FileUrl, UploadId]


def _stream_size(stream: IO[bytes]) -> int | None:
    try:
        if not stream.seekable():
            return None
        here = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(here)
        return end
    except (OSError, ValueError, AttributeError):
        return None


def resolve(item: Input) -> Resolved:
    if isinstance(item, (FileUrl, UploadId)):
        return item
    if isinstance(item, Upload):
        return UploadId(item.id)
    if isinstance(item, NamedFile):
        stream = io.BytesIO(item.content) if isinstance(item.content, bytes) else item.content
        return Source(item.name, None, stream, _stream_size(stream))
    if isinstance(item, bytes):
        return Source("file", None, io.BytesIO(item), len(item))
    if isinstance(item, str) and item.startswith(("http://", "https://")):
        return FileUrl(item)
    if isinstance(item, str) and _UPLOAD_ID.match(item) and not os.path.exists(item):
        return UploadId(item)
    if isinstance(item, (str, os.PathLike)):
        path = Path(item)
        return Source(path.name, path, None, path.stat().st_size)
    name = Path(str(getattr(item, "name", "file"))).name or "file"
    return Source(name, None, item, _stream_size(item))


def resolve_all(inputs: Input | Iterable[Input]) -> list[Resolved]:
    if isinstance(inputs, (str, bytes, os.PathLike, FileUrl, UploadId, Upload, NamedFile)) or hasattr(
        inputs, "read"
    ):
        return [resolve(inputs)]  # type: ignore[arg-type]
    return [resolve(i) for i in inputs]


Step = Union[Mapping[str, Any], tuple[str, Mapping[str, Any]], str]


def steps_json(steps: Sequence[Step]) -> str:
    return json.dumps(steps_list(steps))


def steps_list(steps: Sequence[Step]) -> list[dict[str, Any]]:
    """Steps as the API takes them: `"compress"`, `("rotate", {"angle": 90})` or a mapping."""
    out: list[dict[str, Any]] = []
    for step in steps:
        if isinstance(step, str):
            out.append({"tool": step})
        elif isinstance(step, tuple):
            out.append({"tool": step[0], "options": dict(step[1])})
        else:
            out.append(dict(step))
    return out


PartValue = Union[tuple[None, str], tuple[str, IO[bytes], str]]


def text_parts(fields: Mapping[str, str | None]) -> list[tuple[str, PartValue]]:
    """Text parts, sent before any file so the server refuses a bad request before the upload."""
    return [(name, (None, value)) for name, value in fields.items() if value is not None]


def input_parts(resolved: Sequence[Resolved], files: ExitStack) -> list[tuple[str, PartValue]]:
    """The input parts in order; files opened here are closed with `files`."""
    parts: list[tuple[str, PartValue]] = []
    for item in resolved:
        if isinstance(item, FileUrl):
            parts.append(("file_url", (None, item.part())))
        elif isinstance(item, UploadId):
            parts.append(("upload_id", (None, item.id)))
        else:
            stream = item.stream
            if stream is None:
                assert item.path is not None
                stream = files.enter_context(open(item.path, "rb"))
            parts.append(("file", (item.name, stream, "application/octet-stream")))
    return parts
