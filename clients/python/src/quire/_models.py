"""Models of the API's objects (docs/api.md). Pydantic, so answers are checked as they are read,
with `extra="allow"`: within v1 fields are only added (§8), and a new one stays readable as an
attribute and in `model_extra` instead of breaking an older SDK."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

TERMINAL_STATUSES = frozenset({"succeeded", "failed", "canceled"})


class Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class InputFile(Model):
    name: str
    size: int
    content_type: str


class JobInput(Model):
    files: list[InputFile] = []


class JobLinks(Model):
    self: str
    download: str


class StepRef(Model):
    index: int
    tool: str


class StepSpec(Model):
    tool: str
    options: dict[str, Any] = {}


class JobRecipe(Model):
    """The recipe version a job runs (docs/api.md §13)."""

    id: str
    name: str
    version: int


class JobErrorInfo(Model):
    code: str
    message: str
    retryable: bool = False
    step: StepRef | None = None


class JobResult(Model):
    """`name`, `size`, `content_type`, `expires_at`, then the tool's own facts as extra fields."""

    name: str
    size: int
    content_type: str
    expires_at: datetime | None = None


class Job(Model):
    id: str
    object: str = "job"
    tool: str
    options: dict[str, Any] = {}
    status: str
    progress: int = 0
    attempts: int = 0
    input: JobInput = JobInput()
    metadata: dict[str, str] = {}
    created_at: datetime
    started_at: datetime | None = None
    completed_at: datetime | None = None
    expires_at: datetime | None = None
    links: JobLinks
    steps: list[StepSpec] | None = None
    step: StepRef | None = None
    error: JobErrorInfo | None = None
    result: JobResult | None = None
    recipe: JobRecipe | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


T = TypeVar("T", bound=BaseModel)


class Page(Model, Generic[T]):
    """A list answer: `data`, and `has_more` for cursor paging with `starting_after`."""

    data: list[T]
    has_more: bool = False


class ToolInputs(Model):
    min_files: int
    max_files: int
    accepts: list[str]


class ToolOutput(Model):
    content_type: str


class Tool(Model):
    name: str
    title: str
    description: str = ""
    inputs: ToolInputs
    options_schema: dict[str, Any]
    output: ToolOutput
    available: bool
    reason: str | None = None


class CallerLimits(Model):
    plan: str
    max_file_bytes: int
    max_upload_bytes: int
    max_files_per_job: int
    max_pages_per_job: int
    concurrent_jobs: int
    requests_per_window: int
    window_seconds: int
    result_retention_seconds: int


class ToolCatalogue(Model):
    data: list[Tool]
    limits: CallerLimits


class BatchCounts(Model):
    queued: int = 0
    processing: int = 0
    succeeded: int = 0
    failed: int = 0
    canceled: int = 0


class Batch(Model):
    id: str
    object: str = "batch"
    tool: str
    status: str
    total: int
    counts: BatchCounts
    progress: int = 0
    created_at: datetime
    jobs: list[Job] = []

    @property
    def terminal(self) -> bool:
        return self.status == "completed"


class Recipe(Model):
    """A saved chain of steps at one version (docs/api.md §13); versions never change."""

    id: str
    object: str = "recipe"
    name: str
    version: int
    latest_version: int
    steps: list[StepSpec]
    created_at: datetime
    version_created_at: datetime


class Upload(Model):
    """A tus upload: `offset` of `length` bytes stored so far."""

    id: str
    url: str
    offset: int
    length: int


class DownloadLink(Model):
    url: str
    expires_at: datetime


class WebhookEndpoint(Model):
    id: str
    object: str = "webhook_endpoint"
    url: str
    description: str = ""
    events: list[str]
    status: str
    created_at: datetime
    updated_at: datetime | None = None
    disabled_reason: str | None = None
    secret: str | None = None
    """Only in the answers of create and rotate-secret."""


class DeliveryAttempt(Model):
    attempted_at: datetime
    status_code: int | None = None
    latency_ms: int | None = None
    error_class: str | None = None
    response_excerpt: str | None = None


class WebhookDelivery(Model):
    id: str
    object: str = "webhook_delivery"
    event_type: str
    job: str | None = None
    status: str
    attempt_count: int = 0
    next_attempt_at: datetime | None = None
    attempts: list[DeliveryAttempt] = []


class JobWebhookSecret(Model):
    object: str = "job_webhook_secret"
    secret: str


class PlanLimits(Model):
    name: str
    requests_per_window: int
    window_seconds: int
    max_file_bytes: int
    files_per_job: int
    concurrent_jobs: int
    result_retention_ms: int
    max_pages: int


class Account(Model):
    id: str
    object: str = "account"
    name: str
    plan: str
    limits: PlanLimits | None = None
    created_at: datetime


class ApiKey(Model):
    id: str
    object: str = "api_key"
    account: str
    key_id: str
    name: str | None = None
    scopes: list[str]
    mode: str
    status: str
    created_at: datetime
    key: str | None = None
    """The secret key: only in the answer of create."""

    def __repr__(self) -> str:
        return f"ApiKey(id={self.id!r}, key_id={self.key_id!r}, scopes={self.scopes!r})"

    __str__ = __repr__


class JobEvent(Model):
    """A webhook delivery's body: `job.created`, `job.processing`, `job.succeeded`, `job.failed`,
    `job.canceled`, or a type added later (ignore the ones you do not know)."""

    type: str
    timestamp: datetime
    data: Job


@dataclass(frozen=True)
class Progress:
    """What `on_progress` receives: the job's status, percent and, in a chained job, its step."""

    status: str
    percent: int
    step: StepRef | None
    steps: int
    job: Job


@dataclass(frozen=True)
class UploadProgress:
    """What `on_upload_progress` receives while a file goes up through tus."""

    sent: int
    total: int


@dataclass(frozen=True)
class RateLimit:
    """The latest `RateLimit`/`RateLimit-Policy` headers (IETF draft, docs/api.md §5)."""

    policy: str
    remaining: int | None
    reset_seconds: int | None
    quota: int | None
    window_seconds: int | None


@dataclass(frozen=True)
class RunOutput:
    """`jobs.run_job`'s answer (POST /api/v1/run): the job it created and the result as written."""

    job_id: str
    path: str | None
    bytes: int
    content_type: str | None
    name: str | None


@dataclass(frozen=True)
class RunResult:
    """`run`'s answer: the succeeded job and where its result was written."""

    job: Job
    path: str | None
