"""Inputs of every kind in one job: a file object, a URL the worker fetches (`file_url`), and a file
over the tus threshold, which goes up resumably and is named by its upload id."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from quire import FileUrl, Quire

from .conftest import Server


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_a_file_object_a_url_and_bytes_merge_in_the_order_given(server: Server, sample_pdf: Path) -> None:
    files = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(sample_pdf.parent)))
    threading.Thread(target=files.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{files.server_address[1]}/{sample_pdf.name}"
    try:
        with server.client() as quire, open(sample_pdf, "rb") as first:
            job = quire.jobs.create("merge", [first, FileUrl(url), url, sample_pdf.read_bytes()])
            assert [f.content_type for f in job.input.files][0] == "application/pdf"
            done = quire.jobs.wait(job.id)
    finally:
        files.shutdown()
    assert done.status == "succeeded", done.error
    assert done.result is not None and done.result.model_extra["pages"] == 16  # type: ignore[index]


def test_a_file_over_the_threshold_goes_through_tus_and_is_forgotten_once_the_job_has_it(
    server: Server, sample_pdf: Path, tmp_path: Path
) -> None:
    store = tmp_path / "tus.json"
    sent: list[int] = []
    with Quire(server.key, base_url=server.url, tus_threshold_bytes=1024, tus_store=store) as quire:
        job = quire.jobs.create(
            "rotate", sample_pdf, {"angle": 90}, on_upload_progress=lambda p: sent.append(p.sent)
        )
        assert quire.jobs.wait(job.id).status == "succeeded"
    assert sent[-1] == sample_pdf.stat().st_size
    assert '"url"' not in store.read_text()  # the consumed upload's URL is no longer remembered
