"""The sync client is the async one with `await` removed (generated, and kept so), the package is
`mypy --strict` clean, and the admin, upload and job-management operations answer through both."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import anyio

from quire import AsyncQuire, Quire

from .conftest import SCOPES, Server

CLIENT_DIR = Path(__file__).resolve().parents[1]


def test_the_sync_client_is_generated_from_the_async_one_and_up_to_date() -> None:
    check = subprocess.run([sys.executable, "scripts/gen_sync.py", "--check"], cwd=CLIENT_DIR, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout


def test_quire_and_async_quire_have_the_same_resources_methods_and_parameters() -> None:
    sync_client, async_client = Quire("k", tus_store=None), AsyncQuire("k", tus_store=None)
    for name in ["jobs", "tools", "batches", "uploads", "webhooks", "accounts", "keys"]:
        sync_res = type(sync_client.__dict__[name])
        async_res = type(async_client.__dict__[name])
        methods = {m for m in dir(sync_res) if not m.startswith("_")}
        assert methods == {m for m in dir(async_res) if not m.startswith("_")}, name
        for method in methods:
            assert inspect.signature(getattr(sync_res, method)).parameters.keys() == inspect.signature(
                getattr(async_res, method)
            ).parameters.keys(), f"{name}.{method}"
    sync_client.close()
    anyio.run(async_client.aclose)


def test_the_package_and_its_tests_pass_mypy_strict() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=CLIENT_DIR, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_accounts_keys_and_plans_are_managed_with_an_admin_key(server: Server) -> None:
    with Quire(server.admin_key, base_url=server.url, tus_store=None) as admin:
        account = admin.accounts.create("py-admin", plan="free", idempotency_key="py-admin-once")
        assert admin.accounts.create("py-admin", plan="free", idempotency_key="py-admin-once").id == account.id
        assert admin.accounts.get(account.id).plan == "free"
        assert admin.accounts.update(account.id, plan="pro").plan == "pro"
        assert account.id in [a.id for a in admin.accounts.list().data]
        assert {"free", "pro", "business"} <= {p.name for p in admin.accounts.plans().data}
        key = admin.keys.create(account.id, SCOPES, name="temp")
        assert key.key and key.key not in repr(key)
        assert [k.id for k in admin.keys.list(account.id).data] == [key.id]
        admin.keys.revoke(account.id, key.id)
        assert admin.keys.list(account.id).data[0].status == "revoked"


def test_uploads_and_jobs_are_read_listed_canceled_and_deleted_through_the_async_client(
    server: Server, sample_pdf: Path
) -> None:
    async def main() -> None:
        async with AsyncQuire(server.key, base_url=server.url, tus_store=None) as quire:
            upload = await quire.uploads.create(sample_pdf)
            assert upload.offset == upload.length == sample_pdf.stat().st_size
            job = await quire.jobs.create("rotate", [upload], {"angle": 180})
            seen = [j.status async for j in quire.jobs.events(job.id)]
            assert seen[-1] == "succeeded"
            assert (await quire.jobs.list(tool="rotate", limit=100)).data[0].tool == "rotate"
            spare = await quire.uploads.create(sample_pdf.read_bytes())
            await quire.uploads.delete(spare.id)
            queued = await quire.jobs.create("compress", sample_pdf, {"level": "high"})
            canceled = await quire.jobs.cancel(queued.id)
            assert canceled.status in {"canceled", "succeeded"} or canceled.terminal
            await quire.jobs.delete(job.id)

    anyio.run(main)
