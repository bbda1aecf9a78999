"""`client.tools`, `batches`, `uploads`, `webhooks`, `accounts`, `keys` and `plans`: the API's other
operations (docs/api.md §1, §3, §6, §11, §12; docs/webhooks.md)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from .._backend_async import run_blocking, sleep
from .._errors import QuireError, QuireTimeoutError
from .._inputs import Input, PartValue, Source, input_parts, resolve, resolve_all, text_parts
from .._models import (
    Account,
    ApiKey,
    Batch,
    JobWebhookSecret,
    Page,
    PlanLimits,
    Tool,
    ToolCatalogue,
    Upload,
    UploadProgress,
    WebhookDelivery,
    WebhookEndpoint,
)
from .._tus import TusSession
from ._download import Target, stream_to
from ._transport import AsyncTransport

BATCH_POLL_S = 1.0


class AsyncTools:
    def __init__(self, transport: AsyncTransport) -> None:
        self._t = transport

    async def list(self) -> ToolCatalogue:
        """Every tool with its options schema, and the caller's limits."""
        return ToolCatalogue.model_validate((await self._t.request("GET", "/api/v1/tools")).json())

    async def get(self, name: str) -> Tool:
        for tool in (await self.list()).data:
            if tool.name == name:
                return tool
        raise QuireError(f"no tool named {name!r}", status=404, code="unknown_tool")


class AsyncBatches:
    def __init__(self, transport: AsyncTransport) -> None:
        self._t = transport

    async def create(
        self,
        tool: str | None,
        inputs: Iterable[Input],
        options: Mapping[str, Any] | None = None,
        *,
        recipe: str | None = None,
        metadata: Mapping[str, str] | None = None,
        webhook_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> Batch:
        """One job per input, each with the same tool and options (or the same saved `recipe`, with
        `tool=None`)."""
        resolved = resolve_all(inputs)
        fields: dict[str, str | None] = {
            "tool": tool,
            "recipe": recipe,
            "options": json.dumps(dict(options)) if options is not None else None,
            "metadata": json.dumps(dict(metadata)) if metadata is not None else None,
            "webhook_url": webhook_url,
        }

        def parts(files: ExitStack) -> list[tuple[str, PartValue]]:
            return text_parts(fields) + input_parts(resolved, files)

        response = await self._t.request("POST", "/api/v1/batches", parts=parts, idempotency_key=idempotency_key)
        return Batch.model_validate(response.json())

    async def get(self, batch_id: str) -> Batch:
        return Batch.model_validate((await self._t.request("GET", f"/api/v1/batches/{batch_id}")).json())

    async def cancel(self, batch_id: str, *, idempotency_key: str | None = None) -> Batch:
        response = await self._t.request("POST", f"/api/v1/batches/{batch_id}/cancel", idempotency_key=idempotency_key)
        return Batch.model_validate(response.json())

    async def wait(
        self, batch_id: str, *, on_progress: Callable[[Batch], None] | None = None, timeout_s: float | None = None
    ) -> Batch:
        """The batch once every job ended (polled each second; no timeout unless given)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            batch = await self.get(batch_id)
            if on_progress:
                on_progress(batch)
            if batch.terminal:
                return batch
            if deadline is not None and time.monotonic() >= deadline:
                raise QuireTimeoutError(f"batch {batch_id} did not end within {timeout_s} s", code="wait_timeout")
            await sleep(BATCH_POLL_S)

    async def download(self, batch_id: str, to: Target) -> int:
        """Streams the ZIP of every succeeded job's result; returns the number of bytes."""

        async def link() -> str:
            return f"/api/v1/batches/{batch_id}/download"

        return await stream_to(self._t, link, to, keyed=True)


class AsyncUploads:
    def __init__(self, transport: AsyncTransport, store: Path | None) -> None:
        self._t = transport
        self._store = store

    async def create(
        self, source: Input, *, on_progress: Callable[[UploadProgress], None] | None = None
    ) -> Upload:
        """Uploads a path or seekable binary file through tus, resuming a remembered upload of it."""
        item = resolve(source)
        if not isinstance(item, Source):
            raise TypeError("uploads.create takes a path, bytes or a seekable binary file")
        session = TusSession(self._t.url("/api/v1/uploads"), self._t.auth_headers(), item, self._store)
        report = (lambda s, n: on_progress(UploadProgress(s, n))) if on_progress else None
        try:
            upload_id, url = await run_blocking(lambda: session.upload(report))
        finally:
            session.close()
        return await self.get(upload_id)

    async def get(self, upload_id: str) -> Upload:
        """Bytes stored so far (`HEAD`): where an upload resumes."""
        path = f"/api/v1/uploads/{upload_id}"
        response = await self._t.request("HEAD", path, headers={"Tus-Resumable": "1.0.0"})
        return Upload(
            id=upload_id,
            url=self._t.url(path),
            offset=int(response.headers.get("upload-offset", 0)),
            length=int(response.headers.get("upload-length", 0)),
        )

    async def delete(self, upload_id: str) -> None:
        await self._t.request("DELETE", f"/api/v1/uploads/{upload_id}", headers={"Tus-Resumable": "1.0.0"})


class AsyncWebhooks:
    """Webhook endpoints, their deliveries, and the account's job webhook secret."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._t = transport

    async def create(
        self, url: str, events: Iterable[str] = ("*",), *, description: str | None = None, idempotency_key: str | None = None
    ) -> WebhookEndpoint:
        body: dict[str, Any] = {"url": url, "events": list(events)}
        if description is not None:
            body["description"] = description
        response = await self._t.request("POST", "/api/v1/webhooks", json=body, idempotency_key=idempotency_key)
        return WebhookEndpoint.model_validate(response.json())

    async def list(self) -> Page[WebhookEndpoint]:
        return Page[WebhookEndpoint].model_validate((await self._t.request("GET", "/api/v1/webhooks")).json())

    async def get(self, endpoint_id: str) -> WebhookEndpoint:
        response = await self._t.request("GET", f"/api/v1/webhooks/{endpoint_id}")
        return WebhookEndpoint.model_validate(response.json())

    async def update(self, endpoint_id: str, **changes: Any) -> WebhookEndpoint:
        """`url`, `events`, `description` or `status` (`"enabled"`/`"disabled"`)."""
        response = await self._t.request("PATCH", f"/api/v1/webhooks/{endpoint_id}", json=changes)
        return WebhookEndpoint.model_validate(response.json())

    async def delete(self, endpoint_id: str) -> None:
        await self._t.request("DELETE", f"/api/v1/webhooks/{endpoint_id}")

    async def rotate_secret(self, endpoint_id: str, *, grace_period_seconds: int | None = None) -> WebhookEndpoint:
        body = {} if grace_period_seconds is None else {"grace_period_seconds": grace_period_seconds}
        response = await self._t.request("POST", f"/api/v1/webhooks/{endpoint_id}/rotate-secret", json=body)
        return WebhookEndpoint.model_validate(response.json())

    async def deliveries(
        self, endpoint_id: str, *, limit: int | None = None, starting_after: str | None = None
    ) -> Page[WebhookDelivery]:
        params = {"limit": limit, "starting_after": starting_after}
        response = await self._t.request("GET", f"/api/v1/webhooks/{endpoint_id}/deliveries", params=params)
        return Page[WebhookDelivery].model_validate(response.json())

    async def retry_delivery(self, endpoint_id: str, message_id: str) -> None:
        """One more attempt now, with the same `webhook-id`."""
        await self._t.request("POST", f"/api/v1/webhooks/{endpoint_id}/deliveries/{message_id}/retry")

    async def job_secret(self) -> JobWebhookSecret:
        """The secret that signs jobs' own `webhook_url` deliveries (made on first use)."""
        return JobWebhookSecret.model_validate((await self._t.request("GET", "/api/v1/job-webhook-secret")).json())

    async def rotate_job_secret(self, *, grace_period_seconds: int | None = None) -> JobWebhookSecret:
        body = {} if grace_period_seconds is None else {"grace_period_seconds": grace_period_seconds}
        response = await self._t.request("POST", "/api/v1/job-webhook-secret/rotate", json=body)
        return JobWebhookSecret.model_validate(response.json())


class AsyncAccounts:
    """Accounts and their plans (scope `admin`)."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._t = transport

    async def create(self, name: str, *, plan: str | None = None, idempotency_key: str | None = None) -> Account:
        body = {"name": name, **({"plan": plan} if plan else {})}
        response = await self._t.request("POST", "/api/v1/accounts", json=body, idempotency_key=idempotency_key)
        return Account.model_validate(response.json())

    async def list(self) -> Page[Account]:
        return Page[Account].model_validate((await self._t.request("GET", "/api/v1/accounts")).json())

    async def get(self, account_id: str) -> Account:
        return Account.model_validate((await self._t.request("GET", f"/api/v1/accounts/{account_id}")).json())

    async def update(self, account_id: str, *, plan: str | None = None, name: str | None = None) -> Account:
        body = {k: v for k, v in {"plan": plan, "name": name}.items() if v is not None}
        response = await self._t.request("PATCH", f"/api/v1/accounts/{account_id}", json=body)
        return Account.model_validate(response.json())

    async def plans(self) -> Page[PlanLimits]:
        return Page[PlanLimits].model_validate((await self._t.request("GET", "/api/v1/plans")).json())


class AsyncKeys:
    """API keys of an account (scope `admin`); a new key's secret is shown only by `create`."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._t = transport

    async def create(
        self,
        account_id: str,
        scopes: Iterable[str],
        *,
        name: str | None = None,
        mode: str | None = None,
        expires_in_days: int | None = None,
        idempotency_key: str | None = None,
    ) -> ApiKey:
        body: dict[str, Any] = {"scopes": list(scopes)}
        body.update({k: v for k, v in {"name": name, "mode": mode, "expires_in_days": expires_in_days}.items() if v is not None})
        response = await self._t.request(
            "POST", f"/api/v1/accounts/{account_id}/keys", json=body, idempotency_key=idempotency_key
        )
        return ApiKey.model_validate(response.json())

    async def list(self, account_id: str) -> Page[ApiKey]:
        return Page[ApiKey].model_validate((await self._t.request("GET", f"/api/v1/accounts/{account_id}/keys")).json())

    async def revoke(self, account_id: str, key_id: str) -> None:
        await self._t.request("DELETE", f"/api/v1/accounts/{account_id}/keys/{key_id}")
