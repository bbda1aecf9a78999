"""A consumer written only against the published document.

It uses the package openapi-python-client generated from the live /openapi.json (quire_client, put
under .tmp/clients/python/ and on PYTHONPATH by test/clients/python-client.test.ts): compresses a
PDF, then makes the documented options error happen and reads it as the Problem model. Any answer
the document does not declare raises (raise_on_unexpected_status), so a 201 the document forgot
would fail here. Prints a JSON report.

Usage: compress_client.py <base-url> <api-key> <input.pdf> <output.pdf>
"""

from __future__ import annotations

import json
import sys
import time
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx
from quire_client import AuthenticatedClient, Client
from quire_client.api.files import get_file
from quire_client.api.jobs import create_job, get_job, get_job_download
from quire_client.models import (
    CompressOptions,
    CompressOptionsLevel,
    CreateJobBody,
    CreateJobBodyMetadata,
    CreateJobBodyTool,
    Job,
    JobStatus,
    Problem,
    RotateOptions,
    RotateOptionsAngle,
)
from quire_client.types import File

WAIT_SECONDS = 30
DEADLINE_SECONDS = 90
# A long poll holds the answer up to WAIT_SECONDS; httpx's default timeout is 5 s.
TIMEOUT = httpx.Timeout(WAIT_SECONDS + 15)
ACTIVE = {JobStatus.QUEUED, JobStatus.PROCESSING}


def submit(client: AuthenticatedClient, source: Path, body: CreateJobBody):
    with source.open("rb") as pdf:
        body.file = [File(payload=pdf, file_name=source.name, mime_type="application/pdf")]
        return create_job.sync_detailed(client=client, body=body)


def compress(client: AuthenticatedClient, source: Path) -> Job:
    metadata = CreateJobBodyMetadata.from_dict({"client": "openapi-python-client"})
    options = CompressOptions(level=CompressOptionsLevel.MEDIUM, grayscale=False)
    body = CreateJobBody(tool=CreateJobBodyTool.COMPRESS, options=options, metadata=metadata)
    created = submit(client, source, body)
    job = created.parsed
    if created.status_code != HTTPStatus.CREATED or not isinstance(job, Job):
        raise SystemExit(f"create: {created.status_code} parsed as {type(job).__name__}")
    deadline = time.monotonic() + DEADLINE_SECONDS
    while job.status in ACTIVE:
        if time.monotonic() > deadline:
            raise SystemExit(f"job {job.id} still {job.status.value}")
        polled = get_job.sync_detailed(client=client, id=job.id, wait=WAIT_SECONDS)
        if not isinstance(polled.parsed, Job):
            raise SystemExit(f"get: {polled.status_code} parsed as {type(polled.parsed).__name__}")
        job = polled.parsed
    return job


FILES_PREFIX = "/api/v1/files/"


def download(client: AuthenticatedClient, base_url: str, job: Job, output: Path) -> dict[str, object]:
    link = get_job_download.sync_detailed(client=client, id=job.id)
    if link.status_code != HTTPStatus.FOUND:
        raise SystemExit(f"download: {link.status_code}")
    # With local storage the redirect is getFile's link; its token is the capability, so the
    # file is fetched by a client without the key.
    location = urlsplit(link.headers["location"]).path
    if not location.startswith(FILES_PREFIX):
        raise SystemExit(f"download: redirected to {location}, not a getFile link")
    anonymous = Client(base_url=base_url, timeout=TIMEOUT, raise_on_unexpected_status=True)
    with anonymous:
        result = get_file.sync_detailed(unquote(location[len(FILES_PREFIX) :]), client=anonymous)
    if not isinstance(result.parsed, File):
        raise SystemExit(f"file: {result.status_code} parsed as {type(result.parsed).__name__}")
    content = result.parsed.payload.read()
    output.write_bytes(content)
    return {
        "redirect": int(link.status_code),
        "status": int(result.status_code),
        "contentType": result.headers.get("content-type"),
        "bytes": len(content),
        "head": content[:5].decode("latin-1"),
    }


def refuse(client: AuthenticatedClient, source: Path) -> dict[str, object]:
    # The document types `options` as any tool's options, so rotate's are a well-formed request
    # that the server refuses for compress.
    options = RotateOptions(angle=RotateOptionsAngle.VALUE_90)
    refused = submit(client, source, CreateJobBody(tool=CreateJobBodyTool.COMPRESS, options=options))
    problem = refused.parsed
    return {
        "status": int(refused.status_code),
        "parsedAs": type(problem).__name__,
        "code": problem.code.value if isinstance(problem, Problem) else None,
        "contentType": refused.headers.get("content-type"),
    }


def main(base_url: str, key: str, source: Path, output: Path) -> None:
    client = AuthenticatedClient(
        base_url=base_url, token=key, timeout=TIMEOUT, raise_on_unexpected_status=True
    )
    with client:
        job = compress(client, source)
        report = {
            "job": {"id": job.id, "status": job.status.value},
            "download": download(client, base_url, job, output),
            "refused": refuse(client, source),
        }
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
