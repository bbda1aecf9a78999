"""`jobs.run_job` (POST /api/v1/run) against the real server: the result written in one request, a job
still running when the server stops waiting followed and downloaded, a failed job raised with its code."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from quire import AsyncQuire, QuireError

from .conftest import Server


def test_run_job_writes_the_merged_result_and_names_the_job(server: Server, sample_pdf: Path, tmp_path: Path) -> None:
    with server.client() as quire:
        out = quire.jobs.run_job("merge", [sample_pdf, sample_pdf], to=tmp_path / "merged.pdf")
        assert out.path == str(tmp_path / "merged.pdf") and out.content_type == "application/pdf"
        written = (tmp_path / "merged.pdf").read_bytes()
        assert written[:5] == b"%PDF-" and len(written) == out.bytes
        job = quire.jobs.get(out.job_id)
    assert job.status == "succeeded" and job.result is not None and job.result.size == out.bytes


def test_run_job_follows_a_job_the_server_stopped_waiting_for(server: Server, sample_pdf: Path, tmp_path: Path) -> None:
    async def main() -> None:
        async with AsyncQuire(server.key, base_url=server.url, tus_store=None) as quire:
            out = await quire.jobs.run_job("rotate", sample_pdf, {"angle": 90}, to=tmp_path / "r.pdf", wait_s=0)
            assert (tmp_path / "r.pdf").read_bytes()[:5] == b"%PDF-"
            assert (await quire.jobs.get(out.job_id)).status == "succeeded"

    anyio.run(main)


def test_run_job_raises_a_failed_job_with_its_code_and_job_id(server: Server, sample_pdf: Path, tmp_path: Path) -> None:
    with server.client() as quire, pytest.raises(QuireError) as raised:
        quire.jobs.run_job("merge", [sample_pdf, b"%PDF-1.4\nnot really a PDF\n"], to=tmp_path / "never.pdf")
    assert raised.value.code == "pdf_corrupt" and raised.value.status == 422
    with server.client() as quire:
        job = quire.jobs.get(raised.value.problem["job_id"])
    assert job.status == "failed" and job.error is not None and job.error.code == "pdf_corrupt"
