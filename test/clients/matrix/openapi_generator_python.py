"""A compress job, a chained job (rotate, then compress) and run_job (a merge answered with its PDF,
written to run.pdf) through openapi-generator's Python client.

The package `openapi_client` is generated from the live /openapi.json by
test/clients/generator-matrix.test.ts and put on PYTHONPATH. Prints the two job ids as JSON.

Usage: openapi_generator_python.py <base-url> <api-key> <input.pdf> <output-dir>
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import unquote

import openapi_client
from openapi_client.api.files_api import FilesApi
from openapi_client.api.jobs_api import JobsApi
from openapi_client.models import ChainStep, CompressOptions, CreateJobRequestOptions, Job

FILES_PREFIX = "/api/v1/files/"


def finish(jobs: JobsApi, job: Job) -> Job:
    for _ in range(20):
        if job.status not in ("queued", "processing"):
            break
        job = jobs.get_job(job.id, wait=30)
    if job.status != "succeeded":
        raise SystemExit(f"job {job.id} ended {job.status}")
    return job


def download(jobs: JobsApi, files: FilesApi, job: Job, output: Path) -> None:
    link = jobs.get_job_download(job.id)
    token = unquote(link.url[link.url.index(FILES_PREFIX) + len(FILES_PREFIX) :])
    output.write_bytes(files.get_file(token))


def main(base_url: str, key: str, source: Path, out: Path) -> None:
    config = openapi_client.Configuration(host=base_url, access_token=key)
    with openapi_client.ApiClient(config) as client:
        jobs, files = JobsApi(client), FilesApi(client)
        pdf = (source.name, source.read_bytes())
        options = CreateJobRequestOptions(CompressOptions(level="high"))
        single = jobs.create_job(tool="compress", options=options, file=[pdf], prefer="wait=30")
        steps = [ChainStep(tool="rotate", options={"angle": 90}), ChainStep(tool="compress")]
        chained = jobs.create_job(
            steps=json.dumps([step.to_dict() for step in steps]), file=[pdf], prefer="wait=30"
        )
        for name, job in (("compress", single), ("chain", chained)):
            download(jobs, files, finish(jobs, job), out / f"{name}.pdf")
        (out / "run.pdf").write_bytes(jobs.run_job(tool="merge", file=[pdf, pdf]))
    print(json.dumps({"compress": single.id, "chain": chained.id}))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
