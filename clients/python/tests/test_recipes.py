"""Recipes through the SDK against the real server (docs/api.md §13): save, read versions, replace,
list and delete, sync and async alike; a job, `run` and a batch naming one record the version; the
server's codes and pointers arrive as `QuireError`."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest

from quire import AsyncQuire, QuireError

from .conftest import Server


def test_saves_replaces_reads_versions_lists_and_deletes_a_recipe(server: Server) -> None:
    name = f"py-{uuid.uuid4().hex[:8]}"
    with server.client() as quire:
        saved = quire.recipes.create(name, [("rotate", {"angle": 90})])
        assert (saved.name, saved.version, saved.latest_version) == (name, 1, 1)
        replaced = quire.recipes.replace(name, [("rotate", {"angle": 180}), "compress"])
        assert (replaced.id, replaced.version) == (saved.id, 2)
        first = quire.recipes.get(f"{name}@1")
        assert first.version == 1 and first.latest_version == 2
        assert first.steps[0].tool == "rotate" and first.steps[0].options == {"angle": 90}
        assert f"{name}@2" in [f"{r.name}@{r.version}" for r in quire.recipes.iterate(limit=1)]
        with pytest.raises(QuireError) as taken:
            quire.recipes.create(name, [("rotate", {"angle": 90})])
        assert taken.value.code == "recipe_name_taken" and taken.value.status == 409
        with pytest.raises(QuireError) as invalid:
            quire.recipes.create(f"{name}-bad", [("rotate", {"angle": 90}), ("compress", {"foo": 1})])
        assert invalid.value.code == "invalid_options"
        assert "/steps/1/options/foo" in [e.pointer for e in invalid.value.errors]
        quire.recipes.delete(name)
        with pytest.raises(QuireError) as gone:
            quire.recipes.get(name)
        assert gone.value.status == 404


def test_a_job_run_and_batch_by_recipe_record_the_version(server: Server, sample_pdf: Path, tmp_path: Path) -> None:
    name = f"py-run-{uuid.uuid4().hex[:8]}"

    async def main() -> None:
        async with AsyncQuire(server.key, base_url=server.url, tus_store=None) as quire:
            saved = await quire.recipes.create(name, [("rotate", {"angle": 90})])
            await quire.recipes.replace(name, [("rotate", {"angle": 270})])
            pinned = await quire.jobs.create(None, sample_pdf, recipe=f"{name}@1")
            assert pinned.recipe is not None and (pinned.recipe.id, pinned.recipe.version) == (saved.id, 1)
            assert pinned.options == {"angle": 90}
            result = await quire.run(None, sample_pdf, recipe=name, to=tmp_path / "out.pdf")
            assert result.job.recipe is not None and result.job.recipe.version == 2
            assert (tmp_path / "out.pdf").read_bytes()[:5] == b"%PDF-"
            batch = await quire.batches.create(None, [sample_pdf, sample_pdf], recipe=name)
            assert [j.recipe.version if j.recipe else None for j in batch.jobs] == [2, 2]
            with pytest.raises(QuireError) as missing:
                await quire.jobs.create(None, sample_pdf, recipe=f"{name}-missing")
            assert missing.value.code == "recipe_not_found" and missing.value.status == 404

    anyio.run(main)
