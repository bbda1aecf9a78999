"""Every available tool of the live catalogue runs through the SDK on a sample input: half through
the sync `Quire`, half through `AsyncQuire`, each created, waited for and downloaded."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest

from quire import AsyncQuire, Tool, ToolCatalogue

from .conftest import Server
from .support.samples import inputs_for, options_for


def _available(server: Server) -> list[Tool]:
    with server.client() as quire:
        catalogue = quire.tools.list()
    tools = [t for t in catalogue.data if t.available]
    # A tool whose engine this machine lacks cannot run; scripts/setup.sh installs all of them.
    missing = [f"{t.name}: {t.reason}" for t in catalogue.data if not t.available]
    print(f"{len(tools)} tools available; missing: {missing}")
    assert len(tools) >= 20, missing
    return tools


def test_every_even_tool_runs_through_the_sync_client(server: Server, tmp_path: Path) -> None:
    tools = _available(server)[0::2]
    with server.client() as quire:
        # All created first, so the server's workers run them side by side.
        jobs = [(t, quire.jobs.create(t.name, inputs_for(t), options_for(t))) for t in tools]
        for tool, job in jobs:
            done = quire.jobs.wait(job.id)
            assert done.status == "succeeded", (tool.name, done.error)
            assert done.result is not None
            size = quire.jobs.download(job.id, tmp_path / f"{tool.name}.out")
            assert size == done.result.size == (tmp_path / f"{tool.name}.out").stat().st_size


def test_every_odd_tool_runs_through_the_async_client(server: Server, tmp_path: Path) -> None:
    tools = _available(server)[1::2]

    async def main() -> None:
        async with AsyncQuire(server.key, base_url=server.url, tus_store=None) as quire:
            async def one(tool: Tool) -> None:
                result = await quire.run(tool.name, inputs_for(tool), options_for(tool), to=tmp_path / f"{tool.name}.out")
                assert result.job.status == "succeeded", tool.name
                assert result.job.result is not None
                assert (tmp_path / f"{tool.name}.out").stat().st_size == result.job.result.size

            async with anyio.create_task_group() as group:
                for tool in tools:
                    group.start_soon(one, tool)

    anyio.run(main)


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_the_catalogue_lists_every_tool_with_its_schema_and_the_callers_limits(server: Server, flavour: str) -> None:
    if flavour == "sync":
        with server.client() as quire:
            catalogue = quire.tools.list()
            rotate = quire.tools.get("rotate")
    else:
        async def main() -> tuple[ToolCatalogue, Tool]:
            async with AsyncQuire(server.key, base_url=server.url, tus_store=None) as quire:
                return await quire.tools.list(), await quire.tools.get("rotate")

        catalogue, rotate = anyio.run(main)
    # Every tool the server publishes, read here without the SDK.
    published = httpx.get(f"{server.url}/api/v1/tools", headers={"Authorization": f"Bearer {server.key}"}).json()
    assert [t.name for t in catalogue.data] == [t["name"] for t in published["data"]]
    assert len(catalogue.data) >= 28
    assert catalogue.limits.plan == "business"
    assert "angle" in rotate.options_schema["properties"]
