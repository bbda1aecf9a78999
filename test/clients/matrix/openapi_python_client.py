"""A compress job, a chained job (rotate, then compress) and run_job (a merge answered with its PDF,
written to run.pdf) through openapi-python-client's package.

The package `quire_client` is generated from the live /openapi.json by
test/clients/generator-matrix.test.ts (with test/clients/python/generator.yaml) and put on
PYTHONPATH. Prints the two job ids as JSON.

Usage: openapi_python_client.py <base-url> <api-key> <input.pdf> <output-dir>
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx
from quire_client import AuthenticatedClient
from quire_client.api.files import get_file
from quire_client.api.jobs import create_job, get_job, get_job_download, run_job
from quire_client.models import (
    ChainStep,
    ChainStepOptions,
    ChainStepTool,
    CompressOptions,
    CompressOptionsLevel,
    CreateJobBody,
    CreateJobBodyTool,
    Job,
    JobStatus,
    RunJobBody,
    RunJobBodyTool,
)
from quire_client.types import File

FILES_PREFIX = "/api/v1/files/"
ACTIVE = {JobStatus.QUEUED, JobStatus.PROCESSING}


def create(client: AuthenticatedClient, source: Path, body: CreateJobBody) -> Job:
    with source.open("rb") as pdf:
        body.file = [File(payload=pdf, file_name=source.name, mime_type="application/pdf")]
        job = create_job.sync(client=client, body=body, prefer="wait=30")
    if not isinstance(job, Job):
        raise SystemExit(f"create: parsed as {type(job).__name__}")
    return job


def finish(client: AuthenticatedClient, job: Job, output: Path) -> None:
    for _ in range(20):
        if job.status not in ACTIVE:
            break
        polled = get_job.sync(client=client, id=job.id, wait=30)
        if not isinstance(polled, Job):
            raise SystemExit(f"get: parsed as {type(polled).__name__}")
        job = polled
    if job.status != JobStatus.SUCCEEDED:
        raise SystemExit(f"job {job.id} ended {job.status.value}")
    link = get_job_download.sync_detailed(client=client, id=job.id)
    location = urlsplit(link.headers["location"]).path
    result = get_file.sync(unquote(location[len(FILES_PREFIX) :]), client=client)
    if not isinstance(result, File):
        raise SystemExit(f"file: parsed as {type(result).__name__}")
    output.write_bytes(result.payload.read())


def main(base_url: str, key: str, source: Path, out: Path) -> None:
    timeout = httpx.Timeout(60)
    with AuthenticatedClient(base_url=base_url, token=key, timeout=timeout) as client:
        options = CompressOptions(level=CompressOptionsLevel.HIGH)
        single = create(client, source, CreateJobBody(tool=CreateJobBodyTool.COMPRESS, options=options))
        rotate = ChainStep(tool=ChainStepTool.ROTATE, options=ChainStepOptions.from_dict({"angle": 90}))
        steps = [rotate.to_dict(), ChainStep(tool=ChainStepTool.COMPRESS).to_dict()]
        chained = create(client, source, CreateJobBody(steps=json.dumps(steps)))
        finish(client, single, out / "compress.pdf")
        finish(client, chained, out / "chain.pdf")
        with source.open("rb") as first, source.open("rb") as second:
            pdfs = [File(payload=f, file_name=source.name) for f in [first, second]]
            ran = run_job.sync(client=client, body=RunJobBody(tool=RunJobBodyTool.MERGE, file=pdfs))
        if not isinstance(ran, File):
            raise SystemExit(f"run: parsed as {type(ran).__name__}")
        (out / "run.pdf").write_bytes(ran.payload.read())
    print(json.dumps({"compress": single.id, "chain": chained.id}))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
