"""Resumable uploads with tuspy (tus 1.0, docs/api.md §12). Each upload's URL is remembered in a small
JSON file (tuspy's FileStorage) under a fingerprint of the server and the file, so a process killed
mid-way and started again resumes where the server's `Upload-Offset` says instead of starting over.
Blocking: the async client runs it on a worker thread."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from tusclient import client as tus_client
from tusclient.exceptions import TusCommunicationError
from tusclient.fingerprint import fingerprint as tus_fingerprint
from tusclient.storage import filestorage
from tusclient.uploader.uploader import Uploader

from ._errors import QuireConnectionError, QuireError, problem_error
from ._inputs import Source

# tuspy reads each chunk whole before sending it: this bounds the memory an upload takes.
DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024
# tuspy's own retries of a failed PATCH (it re-reads the offset with HEAD first).
CHUNK_RETRIES = 5
CHUNK_RETRY_DELAY_S = 1


def default_store_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "quire" / "tus-uploads.json"


class _Fingerprint(tus_fingerprint.Fingerprint):
    """tuspy's (size and MD5 of the first 64 KiB) plus the endpoint and the path, so the same file
    sent to two servers, or two files alike in their head, never share an upload URL."""

    def __init__(self, endpoint: str, path: Path | None) -> None:
        self._prefix = f"{endpoint}|{path.resolve() if path else ''}|"

    def get_fingerprint(self, fs: IO[bytes]) -> str:
        return self._prefix + str(super().get_fingerprint(fs))


class TusSession:
    """One file's resumable upload to `endpoint` (`…/api/v1/uploads`)."""

    def __init__(
        self,
        endpoint: str,
        headers: dict[str, str],
        source: Source,
        store_path: Path | None,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> None:
        self._endpoint = endpoint
        self._headers = headers
        self._source = source
        self._chunk_bytes = chunk_bytes
        self._storage: Any = None
        if store_path is not None:
            store_path.parent.mkdir(parents=True, exist_ok=True)
            self._storage = filestorage.FileStorage(str(store_path))  # type: ignore[no-untyped-call]
        self._fingerprint = _Fingerprint(endpoint, source.path)

    def _uploader(self) -> Any:
        client = tus_client.TusClient(self._endpoint, headers=self._headers)
        return Uploader(
            file_path=str(self._source.path) if self._source.path else None,
            file_stream=self._source.stream,
            client=client,
            chunk_size=self._chunk_bytes,
            metadata={"filename": self._source.name},
            retries=CHUNK_RETRIES,
            retry_delay=CHUNK_RETRY_DELAY_S,
            store_url=self._storage is not None,
            url_storage=self._storage,
            fingerprinter=self._fingerprint,
            upload_checksum=False,
        )

    def upload(self, on_progress: Callable[[int, int], None] | None = None) -> tuple[str, str]:
        """Sends what the server lacks; returns the upload's id and URL."""
        try:
            try:
                uploader = self._uploader()
            except TusCommunicationError:
                # The remembered upload is gone (consumed by a job, expired): start a new one.
                self._forget()
                uploader = self._uploader()
            total = uploader.get_file_size()
            if on_progress:
                on_progress(uploader.offset, total)
            if not uploader.url:
                uploader.set_url(uploader.create_url())
                uploader.offset = 0
            while uploader.offset < total:
                uploader.upload_chunk()
                if on_progress:
                    on_progress(uploader.offset, total)
        except TusCommunicationError as exc:
            raise _translate(exc) from None
        url = str(uploader.url)
        return url.rstrip("/").rsplit("/", 1)[-1], url

    def _forget(self) -> None:
        if self._storage is None:
            return
        stream = open(self._source.path, "rb") if self._source.path else self._source.stream
        try:
            assert stream is not None
            stream.seek(0)
            self._storage.remove_item(self._fingerprint.get_fingerprint(stream))
        finally:
            if self._source.path and stream is not None:
                stream.close()

    def forget(self) -> None:
        """Drops the remembered URL once a job has consumed the upload."""
        self._forget()
        self.close()

    def close(self) -> None:
        if self._storage is not None:
            self._storage.close()
            self._storage = None


def _translate(exc: TusCommunicationError) -> QuireError:
    status = getattr(exc, "status_code", None)
    if status is None:
        return QuireConnectionError(f"tus upload failed: {type(exc).__name__}: {exc}", retryable=True)
    body = getattr(exc, "response_content", None) or b""
    return problem_error(int(status), body if isinstance(body, bytes) else str(body).encode(), None)
