"""A real Quire server for the SDK's tests: `node dist/cli/main.js serve` on a free port with a
temporary data dir, as test/support/cli-process.ts starts it for the TypeScript tests. Its download
links point at a FlakyProxy in front of it (QUIRE_PUBLIC_BASE_URL), so a test can break one."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from quire import Quire

from .support.proxy import FlakyProxy

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
SCOPES = ["jobs:read", "jobs:write", "results:read", "webhooks:manage"]
GiB = 1 << 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    url: str
    data_dir: Path
    admin_key: str
    key: str  # a business-plan account's key with every job and webhook scope
    slow_key: str  # a pro-plan account's: one request per 2 s (QUIRE_PLAN_PRO_*)
    proxy: FlakyProxy

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy.port}"

    def client(self, **kwargs: object) -> Quire:
        kwargs.setdefault("tus_store", None)
        return Quire(self.key, base_url=self.url, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    data_dir = Path(tempfile.mkdtemp(prefix="quire-py-sdk-"))
    port = free_port()
    proxy = FlakyProxy(port)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "QUIRE_DATA_DIR": str(data_dir),
        "QUIRE_PORT": str(port),
        "QUIRE_LOG_LEVEL": "warn",
        "QUIRE_PUBLIC_BASE_URL": f"http://127.0.0.1:{proxy.port}",
        "QUIRE_TRANSFERS_ALLOW_PRIVATE": "true",
        "QUIRE_WEBHOOKS_ALLOW_PRIVATE": "true",
        "QUIRE_UPLOAD_MAX_FILE_BYTES": str(GiB + 64 * 1024 * 1024),
        "QUIRE_PLAN_PRO_REQUESTS_PER_WINDOW": "1",
        "QUIRE_PLAN_PRO_WINDOW_SECONDS": "2",
    }
    log = open(data_dir / "server.log", "wb")
    child = subprocess.Popen(
        ["node", str(REPO / "dist/cli/main.js"), "serve"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or child.poll() is not None:
                raise RuntimeError(f"quire serve did not become ready: {(data_dir / 'server.log').read_text()}")
            time.sleep(0.2)
        admin_key = (data_dir / "initial-api-key").read_text().strip()
        with Quire(admin_key, base_url=url, tus_store=None) as admin:
            business = admin.accounts.create("py-sdk", plan="business")
            key = admin.keys.create(business.id, SCOPES, name="py-sdk").key
            pro = admin.accounts.create("py-sdk-slow", plan="pro")
            slow_key = admin.keys.create(pro.id, SCOPES, name="py-sdk-slow").key
        assert key and slow_key
        yield Server(url, data_dir, admin_key, key, slow_key, proxy)
    finally:
        os.killpg(child.pid, signal.SIGTERM)
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
        proxy.close()
        log.close()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def sample_pdf() -> Path:
    return CORPUS / "pypdf-samples__pdflatex-4-pages.pdf"


@pytest.fixture(scope="session")
def big_pdf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A 1 GiB PDF, made once for the memory and tus tests, and deleted after them (pytest keeps its
    last three temporary folders)."""
    from .support.big_pdf import make_big_pdf

    path = tmp_path_factory.mktemp("big") / "big.pdf"
    make_big_pdf(path, GiB)
    yield path
    path.unlink()
