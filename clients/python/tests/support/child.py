"""The client side of the memory and tus tests, run as its own process so its RSS is its own and it
can be killed mid-upload.

    python -m tests.support.child rss URL KEY INPUT OUTPUT   -> {"baseline_kib", "peak_kib", "job"}
    python -m tests.support.child tus URL KEY INPUT STORE    -> "offset N TOTAL" lines, then "done ID"
"""

from __future__ import annotations

import json
import resource
import sys

from quire import Quire, UploadProgress


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main(mode: str, url: str, key: str, source: str, extra: str) -> None:
    if mode == "rss":
        # Every file in the multipart request (no tus), to show httpx streams it.
        with Quire(key, base_url=url, tus_threshold_bytes=None, tus_store=None) as quire:
            quire.tools.list()  # connections and parsers warmed up before the baseline
            baseline = rss_kib()
            job = quire.jobs.create("rotate", source, {"angle": 90})
            job = quire.jobs.wait(job.id)
            assert job.status == "succeeded", job.error
            quire.jobs.download(job.id, extra)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"baseline_kib": baseline, "peak_kib": peak, "job": job.id}), flush=True)
    else:
        def report(p: UploadProgress) -> None:
            print(f"offset {p.sent} {p.total}", flush=True)

        with Quire(key, base_url=url, tus_store=extra) as quire:
            upload = quire.uploads.create(source, on_progress=report)
        print(f"done {upload.id} {upload.offset} {upload.length}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:6])
