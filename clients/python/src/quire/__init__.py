"""Quire's Python SDK: `Quire` (sync) and `AsyncQuire` (async) of the same shape, on httpx.

    from quire import Quire
    with Quire(api_key="qk_live_…", base_url="http://localhost:8080") as quire:
        quire.run("compress", "report.pdf", {"level": "high"}, to="small.pdf")
"""

from ._async._client import AsyncQuire
from ._errors import FieldError, JobFailedError, QuireConnectionError, QuireError, QuireTimeoutError
from ._inputs import FileUrl, Input, NamedFile, UploadId
from ._models import (
    Account,
    ApiKey,
    Batch,
    Job,
    JobEvent,
    JobRecipe,
    Page,
    PlanLimits,
    Progress,
    RateLimit,
    Recipe,
    RunOutput,
    RunResult,
    Tool,
    ToolCatalogue,
    Upload,
    UploadProgress,
    WebhookDelivery,
    WebhookEndpoint,
)
from ._sync._client import Quire
from ._webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "Account",
    "ApiKey",
    "AsyncQuire",
    "Batch",
    "FieldError",
    "FileUrl",
    "Input",
    "Job",
    "JobEvent",
    "JobFailedError",
    "JobRecipe",
    "NamedFile",
    "Page",
    "PlanLimits",
    "Progress",
    "Quire",
    "QuireConnectionError",
    "QuireError",
    "QuireTimeoutError",
    "RateLimit",
    "Recipe",
    "RunOutput",
    "RunResult",
    "Tool",
    "ToolCatalogue",
    "Upload",
    "UploadId",
    "UploadProgress",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookVerificationError",
    "verify_webhook",
]
