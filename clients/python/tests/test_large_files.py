"""1 GiB through the SDK in a child process: the multipart upload and the download stream (RSS grows
by less than 64 MiB), and a tus upload killed at 50 % resumes in a new process with the bytes intact."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from .conftest import GiB, Server

MiB = 1 << 20
CLIENT_DIR = Path(__file__).resolve().parents[1]


def _child(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.child", *args], cwd=CLIENT_DIR, stdout=subprocess.PIPE, text=True
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(4 * MiB):
            digest.update(chunk)
    return digest.hexdigest()


def test_a_1_gib_upload_and_its_download_keep_rss_growth_under_64_mib(
    server: Server, big_pdf: Path, tmp_path: Path
) -> None:
    out = tmp_path / "rotated.pdf"
    child = _child("rss", server.url, server.key, str(big_pdf), str(out))
    try:
        stdout, _ = child.communicate(timeout=600)
        assert child.returncode == 0
        measured = json.loads(stdout.strip().splitlines()[-1])
        growth_mib = (measured["peak_kib"] - measured["baseline_kib"]) / 1024
        print(f"RSS growth over a 1 GiB upload and download: {growth_mib:.1f} MiB")
        assert growth_mib < 64
        assert out.stat().st_size > GiB  # the rotated PDF still holds every embedded stream
        with open(out, "rb") as result:
            assert result.read(5) == b"%PDF-"
    finally:
        out.unlink(missing_ok=True)


def test_a_tus_upload_killed_at_half_resumes_in_a_new_process_and_the_bytes_match(
    server: Server, big_pdf: Path, tmp_path: Path
) -> None:
    store = tmp_path / "tus-uploads.json"
    first = _child("tus", server.url, server.key, str(big_pdf), str(store))
    assert first.stdout is not None
    killed_at = 0
    for line in first.stdout:
        _, sent, total = line.split()
        if int(sent) >= int(total) // 2:
            killed_at = int(sent)
            os.kill(first.pid, signal.SIGKILL)
            break
    first.wait()
    assert killed_at > 0 and first.returncode == -signal.SIGKILL

    second = _child("tus", server.url, server.key, str(big_pdf), str(store))
    stdout, _ = second.communicate(timeout=600)
    assert second.returncode == 0
    lines = stdout.strip().splitlines()
    resumed_from = int(lines[0].split()[1])
    assert resumed_from >= killed_at  # nothing the server had acknowledged was sent again
    _, upload_id, offset, length = lines[-1].split()
    assert int(offset) == int(length) == big_pdf.stat().st_size
    stored = server.data_dir / "uploads" / upload_id
    assert _sha256(stored) == _sha256(big_pdf)
