"""`client.recipes`: saved, versioned chains of steps that `jobs.create(recipe=…)`, `batches.create`
and `run` name (docs/api.md §13). Saving makes version 1, replacing the next version; versions never
change, and deleting takes them all."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .._inputs import Step, steps_list
from .._models import Page, Recipe
from ._transport import SyncTransport


class Recipes:
    def __init__(self, transport: SyncTransport) -> None:
        self._t = transport

    def create(self, name: str, steps: Sequence[Step], *, idempotency_key: str | None = None) -> Recipe:
        """Saves version 1 of `name`; `QuireError` `recipe_name_taken` when the account has it."""
        body = {"name": name, "steps": steps_list(steps)}
        response = self._t.request("POST", "/api/v1/recipes", json=body, idempotency_key=idempotency_key)
        return Recipe.model_validate(response.json())

    def get(self, ref: str) -> Recipe:
        """By name or id, optionally `@version` (`"scan-cleanup@2"`); the newest version without one."""
        return Recipe.model_validate((self._t.request("GET", f"/api/v1/recipes/{ref}")).json())

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> Page[Recipe]:
        """The account's recipes at their newest version, newest first."""
        params = {"limit": limit, "starting_after": starting_after}
        return Page[Recipe].model_validate((self._t.request("GET", "/api/v1/recipes", params=params)).json())

    def iterate(self, *, limit: int | None = None) -> Iterator[Recipe]:
        """Every recipe, page after page."""
        after: str | None = None
        while True:
            page = self.list(limit=limit, starting_after=after)
            for recipe in page.data:
                yield recipe
            if not page.has_more or not page.data:
                return
            after = page.data[-1].id

    def replace(self, ref: str, steps: Sequence[Step], *, idempotency_key: str | None = None) -> Recipe:
        """Saves `steps` as the next version; earlier versions still run as `name@n`."""
        body = {"steps": steps_list(steps)}
        response = self._t.request("PUT", f"/api/v1/recipes/{ref}", json=body, idempotency_key=idempotency_key)
        return Recipe.model_validate(response.json())

    def delete(self, ref: str) -> None:
        """Deletes the recipe with every version."""
        self._t.request("DELETE", f"/api/v1/recipes/{ref}")


__all__ = ["Recipes"]
