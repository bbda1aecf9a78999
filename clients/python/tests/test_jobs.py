"""Jobs through the SDK against the real server: chained jobs with their steps, batches, typed errors,
retries that never make a second job, resumed downloads, and the API key kept out of every error."""

from __future__ import annotations

import hashlib
import io
import logging
import threading
import time
import traceback
import zipfile
from contextlib import ExitStack
from pathlib import Path

import anyio
import httpx
import pytest

from quire import AsyncQuire, JobFailedError, Progress, Quire, QuireConnectionError, QuireError

from .conftest import SCOPES, Server


def test_a_chained_job_reports_its_steps_and_downloads_the_last_steps_result(
    server: Server, sample_pdf: Path, tmp_path: Path
) -> None:
    # OCR takes seconds, so the events stream shows the job processing in its second step.
    seen: list[Progress] = []
    with server.client() as quire:
        result = quire.run(
            None, sample_pdf, steps=[("rotate", {"angle": 90}), ("ocr", {})],
            to=tmp_path / "out.pdf", on_progress=seen.append,
        )
    job = result.job
    assert job.status == "succeeded" and [s.tool for s in job.steps or []] == ["rotate", "ocr"]
    assert [s["tool"] for s in job.result.model_extra["steps"]] == ["rotate", "ocr"]  # type: ignore[union-attr,index]
    assert seen and all(p.steps == 2 for p in seen) and seen[-1].percent == 100
    processing = [p for p in seen if p.status == "processing"]
    assert processing and all(p.step is not None for p in processing)
    assert processing[-1].step is not None and processing[-1].step.tool == "ocr"
    assert (tmp_path / "out.pdf").read_bytes()[:5] == b"%PDF-"


def test_a_batch_runs_one_job_per_file_and_downloads_their_zip(server: Server, sample_pdf: Path, tmp_path: Path) -> None:
    async def main() -> None:
        async with AsyncQuire(server.key, base_url=server.url, tus_store=None) as quire:
            batch = await quire.batches.create("rotate", [sample_pdf, sample_pdf.read_bytes()], {"angle": 90})
            assert batch.total == 2
            done = await quire.batches.wait(batch.id)
            assert done.counts.succeeded == 2
            await quire.batches.download(batch.id, tmp_path / "all.zip")

    anyio.run(main)
    with zipfile.ZipFile(tmp_path / "all.zip") as archive:
        assert len(archive.namelist()) == 2


def test_bad_options_raise_a_typed_error_with_the_servers_code_and_pointer(server: Server, sample_pdf: Path) -> None:
    with server.client() as quire, pytest.raises(QuireError) as raised:
        quire.jobs.create("compress", sample_pdf, {"level": "extreme"})
    error = raised.value
    assert (error.status, error.code, error.retryable) == (400, "invalid_options", False)
    assert error.errors[0].pointer == "/options/level"
    assert error.request_id and error.request_id.startswith("req_")
    assert error.problem["code"] == "invalid_options" and error.title


def test_a_failed_job_raises_a_typed_error_with_the_jobs_code(server: Server, sample_pdf: Path, tmp_path: Path) -> None:
    with server.client() as quire:
        locked = quire.run("protect", sample_pdf, {"user_password": "right-one"}, to=tmp_path / "locked.pdf")
        assert locked.job.status == "succeeded"
        with pytest.raises(JobFailedError) as raised:
            quire.run("unlock", tmp_path / "locked.pdf", {"password": "wrong-one"}, to=tmp_path / "x.pdf")
    assert raised.value.code == "invalid_password"
    assert raised.value.job.status == "failed"
    assert not (tmp_path / "x.pdf").exists()


def test_a_dropped_answer_and_a_429_during_create_are_retried_into_exactly_one_job(
    server: Server, sample_pdf: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The slow account's plan allows one request per 2 s: the retry after the dropped answer meets 429.
    server.proxy.arm(b"POST /api/v1/jobs", cut_after=0)
    caplog.set_level(logging.INFO, logger="quire")
    with Quire(server.slow_key, base_url=server.proxy_url, tus_store=None) as quire:
        job = quire.jobs.create("rotate", sample_pdf, {"angle": 90}, metadata={"case": "retry"})
        assert quire.rate_limit is not None and quire.rate_limit.quota == 1 and quire.rate_limit.window_seconds == 2
        listed = quire.jobs.list(limit=100)
    assert [j.id for j in listed.data if j.metadata.get("case") == "retry"] == [job.id]
    retries = [r.getMessage() for r in caplog.records if "retrying POST /api/v1/jobs" in r.getMessage()]
    assert any("RemoteProtocolError" in r or "ReadError" in r for r in retries), retries
    assert any(r.endswith("after 429") for r in retries), retries


def test_a_download_cut_mid_way_resumes_and_its_sha256_matches(server: Server, sample_pdf: Path, tmp_path: Path) -> None:
    with server.client() as quire:
        job = quire.jobs.wait(quire.jobs.create("rotate", sample_pdf, {"angle": 90}).id)
        assert job.result is not None and job.result.size > 20_000
        whole = tmp_path / "whole.pdf"
        quire.jobs.download(job.id, whole)
    # A new client, so the link's first request opens a new connection: the one the proxy breaks.
    fault = server.proxy.arm(b"GET /api/v1/files/", cut_after=job.result.size // 2)
    with server.client() as quire, open(tmp_path / "resumed.pdf", "wb") as out:
        assert quire.jobs.download(job.id, out) == job.result.size
    assert fault.fired
    # The temporary link is a capability (and may be S3's): the API key is never sent to it.
    links = [h for h in server.proxy.heads if h.startswith(b"GET /api/v1/files/")]
    assert len(links) >= 2 and not any(b"authorization" in h.lower() for h in links)
    resumed = hashlib.sha256((tmp_path / "resumed.pdf").read_bytes()).hexdigest()
    assert resumed == hashlib.sha256(whole.read_bytes()).hexdigest()


def test_the_api_key_never_appears_in_an_error_a_repr_or_a_log_line(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake = "qk_live_AbCd1234_" + "s3cretS3cretS3cretS3cretS3cret0000"
    texts: list[str] = []
    for base_url in (server.url, "http://127.0.0.1:9"):
        with Quire(fake, base_url=base_url, tus_store=None, max_retries=1, retry_budget_s=1) as quire:
            texts.append(repr(quire))
            with pytest.raises(QuireError) as raised:
                quire.jobs.list()
            texts += [str(raised.value), repr(raised.value), "".join(traceback.format_exception(raised.value))]
    assert isinstance(raised.value, QuireConnectionError)
    assert "s3cret" not in "\n".join(texts) + caplog.text
    assert "invalid_api_key" in texts[2]


def test_wait_falls_back_to_long_polling_when_the_event_stream_breaks_twice(
    server: Server, sample_pdf: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quire")
    with server.client() as quire:
        job = quire.jobs.create("rotate", sample_pdf, {"angle": 90})
    for _ in range(2):
        server.proxy.arm(f"GET /api/v1/jobs/{job.id}/events".encode(), cut_after=0)
    # A new client through the proxy: each stream opens a connection, which the proxy breaks.
    with Quire(server.key, base_url=server.proxy_url, tus_store=None) as quire:
        done = quire.jobs.wait(job.id)
    assert done.status == "succeeded"
    broke = [r.getMessage() for r in caplog.records if "events stream" in r.getMessage()]
    assert len(broke) == 2, broke


class _SlowFile(io.BytesIO):
    """Gives its bytes 4 KiB at a time, 100 ms apart: an upload that is still going on."""

    def read(self, size: int | None = -1) -> bytes:
        time.sleep(0.1)
        return super().read(min(4096, size if size and size > 0 else 4096))


def test_a_second_create_with_the_key_of_one_in_flight_waits_and_gets_the_same_job(
    server: Server, sample_pdf: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quire")
    key = f"py-in-flight-{time.time_ns()}"
    data = sample_pdf.read_bytes()
    ids: list[str] = []

    def create(content: io.BytesIO) -> None:
        with server.client() as quire:
            ids.append(quire.jobs.create("rotate", content, {"angle": 90}, idempotency_key=key).id)

    slow = threading.Thread(target=create, args=(_SlowFile(data),))
    slow.start()
    time.sleep(0.25)  # the slow upload (about 0.6 s for 24 KiB) holds the key by now
    create(io.BytesIO(data))
    slow.join()
    assert len(ids) == 2 and ids[0] == ids[1]
    assert any(r.getMessage().endswith("after 409") for r in caplog.records)


def test_wait_polls_plainly_when_the_key_already_holds_every_stream_it_may(
    server: Server, sample_pdf: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="quire")
    with Quire(server.admin_key, base_url=server.url, tus_store=None) as admin:
        account = admin.accounts.create("py-sdk-streams", plan="business")
        key = admin.keys.create(account.id, SCOPES, name="py-sdk-streams").key
    assert key
    headers = {"Authorization": f"Bearer {key}", "Accept": "text/event-stream"}
    with Quire(key, base_url=server.url, tus_store=None) as quire, ExitStack() as streams:
        slow = quire.jobs.create("ocr", sample_pdf, {"mode": "force"})
        http = streams.enter_context(httpx.Client(base_url=server.url, timeout=60))
        # The server's cap per key (QUIRE_STREAMS_MAX_PER_KEY, 10): all held on the OCR job.
        for _ in range(10):
            held = streams.enter_context(http.stream("GET", f"/api/v1/jobs/{slow.id}/events", headers=headers))
            assert held.status_code == 200
        refused = http.get(f"/api/v1/jobs/{slow.id}/events", headers=headers)
        assert (refused.status_code, refused.json()["code"]) == (429, "too_many_streams")

        done = quire.jobs.wait(quire.jobs.create("rotate", sample_pdf, {"angle": 90}).id)
        assert done.status == "succeeded"
        assert quire.jobs.get(slow.id).status in ("queued", "processing"), "the streams were held to the end"
    assert any("polling" in r.getMessage() and "plainly" in r.getMessage() for r in caplog.records)
