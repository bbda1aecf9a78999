// The job resource (docs/api.md §2, "The job object"): the public job, a page of jobs and a download
// link as OpenAPI components, which every job answer, the batch view and the webhook events reference.
import { Type } from '@sinclair/typebox';
import { jobStatuses } from '../../model/job.js';
import { ref } from './common-schemas.js';
import { inputSource, jobTransferFields } from './transfer-schemas.js';

const time = (description: string) => Type.String({ format: 'date-time', description });
const stepRef = (description: string) =>
  Type.Object(
    { index: Type.Integer({ minimum: 0, description: 'From 0.' }), tool: Type.String() },
    { description },
  );

/** The public job object, as `jobView` builds it. Objects stay open: v1 only adds fields (§8). */
export const JobSchema = Type.Object(
  {
    id: Type.String({ description: '`job_` + ULID.' }),
    object: Type.Literal('job'),
    tool: Type.String({ description: 'Tool name.' }),
    options: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The validated options with defaults filled in; secret options read `[redacted]`.',
      },
    ),
    status: ref('JobStatus'),
    progress: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: '0–99 until the job succeeds, then 100.',
    }),
    attempts: Type.Integer({ minimum: 0, description: 'Times a worker has started the job.' }),
    input: Type.Object({
      files: Type.Array(
        Type.Object({
          name: Type.String({ description: 'Cleaned display name.' }),
          size: Type.Integer({ minimum: 0 }),
          content_type: Type.String({ description: 'Sniffed from the content.' }),
          source: inputSource,
        }),
      ),
    }),
    metadata: Type.Object({}, { additionalProperties: Type.String(), description: 'As sent; `{}` if none.' }),
    created_at: time('When the job was created.'),
    started_at: Type.Optional(time('When a worker first claimed it.')),
    completed_at: Type.Optional(time('When it succeeded, failed or was canceled.')),
    expires_at: Type.Optional(time('Succeeded jobs: when the result is deleted.')),
    links: Type.Object({
      self: Type.String(),
      download: Type.String({ description: 'Answers 409 until the job succeeds.' }),
    }),
    ...jobTransferFields,
    steps: Type.Optional(
      Type.Array(
        Type.Object({
          tool: Type.String(),
          options: Type.Object({}, { additionalProperties: true }),
        }),
        { description: 'Jobs of several steps only: every step in order (secrets read `[redacted]`).' },
      ),
    ),
    step: Type.Optional(stepRef('Jobs of several steps, while processing: the step running.')),
    recipe: Type.Optional(
      Type.Object(
        {
          id: Type.String({ description: '`rcp_` + ULID.' }),
          name: Type.String({ description: 'The recipe’s name when the job was created.' }),
          version: Type.Integer({ minimum: 1, description: 'The version whose steps the job runs.' }),
        },
        { description: 'Jobs created with a `recipe` part: the recipe version they run (docs/api.md §13).' },
      ),
    ),
    error: Type.Optional(
      Type.Object(
        {
          code: ref('ErrorCode'),
          message: Type.String({ description: 'For people.' }),
          retryable: Type.Boolean({ description: 'Whether submitting the same job again may succeed.' }),
          step: Type.Optional(stepRef('Jobs of several steps: the step that failed.')),
        },
        { description: 'Failed jobs only.' },
      ),
    ),
    result: Type.Optional(
      Type.Object(
        {
          name: Type.String({ description: 'Download file name.' }),
          size: Type.Integer({ minimum: 0 }),
          content_type: Type.String(),
          expires_at: time('When the result is deleted.'),
        },
        {
          additionalProperties: true,
          description:
            "Succeeded jobs only; tool-specific facts are added beside these (docs/tools.md), and `steps` (each step's tool and facts) for jobs of several steps.",
        },
      ),
    ),
  },
  { description: 'A job: one tool run on uploaded files. Fields not known yet are left out, never null.' },
);

export const JobListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ref('Job')),
  has_more: Type.Boolean({ description: 'Fetch the next page with `starting_after=<last id>`.' }),
});

export const DownloadLinkSchema = Type.Object({
  url: Type.String({
    description: 'The temporary link; relative for local storage unless a base URL is set.',
  }),
  expires_at: time('When the link stops working.'),
});

export const jobComponents = {
  JobStatus: Type.Unsafe({ type: 'string', enum: [...jobStatuses] }),
  Job: JobSchema,
  JobList: JobListSchema,
  DownloadLink: DownloadLinkSchema,
};
