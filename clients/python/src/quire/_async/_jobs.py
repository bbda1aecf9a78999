"""`client.jobs`: create (streamed multipart, tus above the threshold), read, list, wait (SSE with
long-poll fallback), download, cancel and delete (docs/api.md §2)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import SSEError, aconnect_sse

from .._backend_async import run_blocking, sleep
from .._errors import JobFailedError, QuireError, QuireTimeoutError, problem_error
from .._inputs import (
    FileUrl,
    Input,
    PartValue,
    Resolved,
    Source,
    Step,
    UploadId,
    input_parts,
    resolve_all,
    steps_json,
    text_parts,
)
from .._models import DownloadLink, Job, Page, Progress, RunOutput, UploadProgress
from .._tus import TusSession
from ._download import Target, disposition_name, stream_to, write_answer
from ._transport import AsyncTransport

log = logging.getLogger("quire")

# The long-poll's own cap (docs/api.md §2: `wait` is 0–60).
LONG_POLL_S = 60
# Plain reads when the server refuses another stream or long-poll: 0.5 s, doubling to 5 s.
PLAIN_POLL_FIRST_S = 0.5
PLAIN_POLL_MAX_S = 5.0
# The events stream sends nothing while a job does not change (no heartbeats): past this the client
# reconnects, which starts again from the job's current state. Not a limit on the job.
SSE_IDLE_S = 90.0
# After this many broken or refused event streams in a row, long-polling takes over.
SSE_FAILURES_BEFORE_POLLING = 2

# The longest wait a server allows for POST /run (QUIRE_PREFER_WAIT_MAX_S is at most 600 s), with room
# for the answer to start: the read timeout of a run without `wait_s`.
RUN_READ_TIMEOUT_S = 630.0

ProgressCallback = Callable[[Progress], None]
UploadCallback = Callable[[UploadProgress], None]


def _progress(job: Job) -> Progress:
    return Progress(job.status, job.progress, job.step, len(job.steps or []) or 1, job)


def _names_job(error: QuireError) -> bool:
    """A problem naming the job is the job's own outcome: sending the request again repeats it."""
    return "job_id" in error.problem and error.code != "job_still_running"


def failure(job: Job) -> JobFailedError:
    """The typed error of a job that ended without a result."""
    if job.status == "failed" and job.error is not None:
        where = f" at step {job.error.step.index} ({job.error.step.tool})" if job.error.step else ""
        return JobFailedError(
            f"job {job.id} failed{where}: {job.error.code}: {job.error.message}",
            job=job,
            code=job.error.code,
            detail=job.error.message,
            retryable=job.error.retryable,
        )
    return JobFailedError(f"job {job.id} ended {job.status}", job=job, code=f"job_{job.status}")


def _fields(
    tool: str | None,
    options: Mapping[str, Any] | None,
    steps: Sequence[Step] | None,
    recipe: str | None,
    metadata: Mapping[str, str] | None,
    webhook_url: str | None,
    export: str | Mapping[str, Any] | None,
) -> dict[str, str | None]:
    """A job request's text parts, spec first (docs/api.md §2)."""
    return {
        "tool": tool if steps is None and recipe is None else None,
        "options": json.dumps(dict(options)) if options is not None and steps is None else None,
        "steps": steps_json(steps) if steps is not None else None,
        "recipe": recipe,
        "metadata": json.dumps(dict(metadata)) if metadata is not None else None,
        "webhook_url": webhook_url,
        "export": export if isinstance(export, str) or export is None else json.dumps(dict(export)),
    }


class AsyncJobs:
    def __init__(self, transport: AsyncTransport, tus_threshold: int | None, tus_store: Path | None) -> None:
        self._t = transport
        self._threshold = tus_threshold
        self._store = tus_store

    def _over_threshold(self, size: int | None) -> bool:
        return self._threshold is not None and size is not None and size > self._threshold

    async def _upload_large(
        self, resolved: list[Resolved], on_upload: UploadCallback | None
    ) -> tuple[list[Resolved], list[TusSession]]:
        """Files above the threshold go up through tus first and are then named by upload id."""
        out: list[Resolved] = []
        sessions: list[TusSession] = []
        for item in resolved:
            if isinstance(item, Source) and self._over_threshold(item.size):
                session = TusSession(self._t.url("/api/v1/uploads"), self._t.auth_headers(), item, self._store)
                report = (lambda s, n: on_upload(UploadProgress(s, n))) if on_upload else None
                upload_id, _ = await run_blocking(lambda: session.upload(report))
                sessions.append(session)
                out.append(UploadId(upload_id))
            else:
                out.append(item)
        return out, sessions

    async def create(
        self,
        tool: str | None = None,
        inputs: Input | Iterable[Input] = (),
        options: Mapping[str, Any] | None = None,
        *,
        steps: Sequence[Step] | None = None,
        recipe: str | None = None,
        metadata: Mapping[str, str] | None = None,
        webhook_url: str | None = None,
        export: str | Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        prefer_wait_s: int | None = None,
        on_upload_progress: UploadCallback | None = None,
    ) -> Job:
        """Creates a job of one `tool`, of `steps` (`[("rotate", {"angle": 90}), "compress"]`) or of a
        saved `recipe` (`"scan-cleanup"`, `"scan-cleanup@2"` or its id)."""
        resolved, sessions = await self._upload_large(resolve_all(inputs), on_upload_progress)
        fields = _fields(tool, options, steps, recipe, metadata, webhook_url, export)

        def parts(files: ExitStack) -> list[tuple[str, PartValue]]:
            return text_parts(fields) + input_parts(resolved, files)

        headers = {"Prefer": f"wait={prefer_wait_s}"} if prefer_wait_s else None
        response = await self._t.request("POST", "/api/v1/jobs", parts=parts, headers=headers, idempotency_key=idempotency_key)
        for session in sessions:
            session.forget()
        return Job.model_validate(response.json())

    async def run_job(
        self,
        tool: str | None = None,
        inputs: Input | Iterable[Input] = (),
        options: Mapping[str, Any] | None = None,
        *,
        to: Target | None = None,
        wait_s: int | None = None,
        steps: Sequence[Step] | None = None,
        recipe: str | None = None,
        metadata: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        on_upload_progress: UploadCallback | None = None,
    ) -> RunOutput:
        """POST /api/v1/run: the job and its result in one request, the result streamed to `to` (a path
        or a binary file; by default its own name in the working directory). A failed job raises
        `QuireError` with the job's code and `problem["job_id"]`. A job still running when the server
        stops waiting (`wait_s`, or the server's cap) is followed and downloaded, never uploaded again."""
        resolved, sessions = await self._upload_large(resolve_all(inputs), on_upload_progress)
        fields = _fields(tool, options, steps, recipe, metadata, None, None)

        def parts(files: ExitStack) -> list[tuple[str, PartValue]]:
            return text_parts(fields) + input_parts(resolved, files)

        read = RUN_READ_TIMEOUT_S if wait_s is None else wait_s + 30.0
        try:
            response = await self._t.send_streamed(
                "POST",
                "/api/v1/run",
                parts=parts,
                headers={"Prefer": f"wait={wait_s}"} if wait_s is not None else None,
                idempotency_key=idempotency_key,
                timeout=httpx.Timeout(self._t.timeout.connect, read=read),
                final=_names_job,
            )
        except QuireError as exc:
            job_id = exc.problem.get("job_id")
            if exc.code != "job_still_running" or not isinstance(job_id, str):
                raise
            for session in sessions:
                session.forget()
            job, path = await self._finish(job_id, to=to, on_progress=None)
            assert job.result is not None
            written = job.result.size
            return RunOutput(job_id, path, written, job.result.content_type, job.result.name)
        for session in sessions:
            session.forget()
        try:
            name = disposition_name(response.headers.get("content-disposition"))
            target: Target = to if to is not None else (name or "result")
            written = await write_answer(response, target)
        finally:
            await response.aclose()
        path = str(target) if isinstance(target, (str, Path)) else None
        return RunOutput(response.headers.get("quire-job-id", ""), path, written, response.headers.get("content-type"), name)

    async def get(self, job_id: str, *, wait_s: int | None = None) -> Job:
        timeout = httpx.Timeout(self._t.timeout.connect, read=(wait_s or 0) + 30.0) if wait_s else None
        response = await self._t.request("GET", f"/api/v1/jobs/{job_id}", params={"wait": wait_s}, timeout=timeout)
        return Job.model_validate(response.json())

    async def list(
        self,
        *,
        limit: int | None = None,
        status: str | None = None,
        tool: str | None = None,
        starting_after: str | None = None,
    ) -> Page[Job]:
        params = {"limit": limit, "status": status, "tool": tool, "starting_after": starting_after}
        response = await self._t.request("GET", "/api/v1/jobs", params=params)
        return Page[Job].model_validate(response.json())

    async def cancel(self, job_id: str, *, idempotency_key: str | None = None) -> Job:
        response = await self._t.request("POST", f"/api/v1/jobs/{job_id}/cancel", idempotency_key=idempotency_key)
        return Job.model_validate(response.json())

    async def delete(self, job_id: str) -> None:
        await self._t.request("DELETE", f"/api/v1/jobs/{job_id}")

    async def events(self, job_id: str) -> AsyncIterator[Job]:
        """The job as it changes, over Server-Sent Events, until it ends (one connection)."""
        timeout = httpx.Timeout(self._t.timeout.connect, read=SSE_IDLE_S)
        url = self._t.url(f"/api/v1/jobs/{job_id}/events")
        async with aconnect_sse(self._t.http, "GET", url, headers=self._t.auth_headers(), timeout=timeout) as source:
            response = source.response
            self._t.note(response)
            if response.status_code >= 400:
                await response.aread()
                raise problem_error(response.status_code, response.content, response.headers.get("x-request-id"))
            async for event in source.aiter_sse():
                if event.event == "job":
                    yield Job.model_validate_json(event.data)

    async def wait(
        self, job_id: str, *, on_progress: ProgressCallback | None = None, timeout_s: float | None = None
    ) -> Job:
        """The job once it ended. No timeout unless `timeout_s` is given: a long job is waited for."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        last: tuple[str, int, int | None] | None = None
        failures = 0
        streams_refused = False
        interval = PLAIN_POLL_FIRST_S

        def seen(job: Job) -> bool:
            nonlocal last
            key = (job.status, job.progress, job.step.index if job.step else None)
            if on_progress and key != last:
                on_progress(_progress(job))
            last = key
            return job.terminal

        while True:
            if deadline is not None and time.monotonic() >= deadline:
                raise QuireTimeoutError(f"job {job_id} did not end within {timeout_s} s", code="wait_timeout")
            if failures < SSE_FAILURES_BEFORE_POLLING and not streams_refused:
                try:
                    async for job in self.events(job_id):
                        failures = 0
                        if seen(job):
                            return job
                        if deadline is not None and time.monotonic() >= deadline:
                            break
                    failures += 1  # the stream ended before the job did: a proxy cut it, or worse
                except (httpx.TransportError, SSEError) as exc:
                    failures += 1
                    log.info("quire: events stream of %s broke (%s)", job_id, type(exc).__name__)
                    continue
                except QuireError as exc:
                    if exc.code != "too_many_streams":
                        raise
                    streams_refused = True
                    log.info("quire: no more streams for this key; polling %s plainly", job_id)
            if not streams_refused:
                remaining = LONG_POLL_S if deadline is None else max(0, min(LONG_POLL_S, int(deadline - time.monotonic())))
                try:
                    job = await self.get(job_id, wait_s=remaining or None)
                except QuireError as exc:
                    if exc.code != "too_many_streams":
                        raise
                    streams_refused = True
                    log.info("quire: no more long-polls for this key; polling %s plainly", job_id)
                    continue
            else:
                # The key holds as many streams and long-polls as the server allows (docs/errors.md,
                # `too_many_streams`): plain reads, spaced out, hold no connection open.
                await sleep(interval)
                interval = min(interval * 2, PLAIN_POLL_MAX_S)
                job = await self.get(job_id)
            if seen(job):
                return job

    async def download_link(self, job_id: str) -> DownloadLink:
        response = await self._t.request(
            "GET", f"/api/v1/jobs/{job_id}/download", headers={"Accept": "application/json"}
        )
        return DownloadLink.model_validate(response.json())

    async def download(self, job_id: str, to: Target) -> int:
        """Streams the result to a path or a binary file; returns the number of bytes."""

        async def link() -> str:
            return (await self.download_link(job_id)).url

        return await stream_to(self._t, link, to)

    async def run(
        self,
        tool: str | None,
        inputs: Input | Iterable[Input],
        options: Mapping[str, Any] | None = None,
        *,
        to: Target | None = None,
        on_progress: ProgressCallback | None = None,
        **create: Any,
    ) -> tuple[Job, str | None]:
        job = await self.create(tool, inputs, options, **create)
        return await self._finish(job.id, to=to, on_progress=on_progress)

    async def _finish(
        self, job_id: str, *, to: Target | None, on_progress: ProgressCallback | None
    ) -> tuple[Job, str | None]:
        """Waits for the job and downloads its result to `to` (by default its own name)."""
        job = await self.wait(job_id, on_progress=on_progress)
        if job.status != "succeeded" or job.result is None:
            raise failure(job)
        target: Target = to if to is not None else job.result.name
        await self.download(job.id, target)
        return job, str(target) if isinstance(target, (str, Path)) else None


__all__ = ["AsyncJobs", "FileUrl", "UploadId", "failure"]
