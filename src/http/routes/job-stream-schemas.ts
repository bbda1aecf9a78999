// The route schema of /jobs/{id}/events (a job as Server-Sent Events, docs/api.md §2) and the refusal
// that event streams and long-polls share once a key or account holds as many open as allowed (§5).
import { type DocResponse, jobIdParams, problem } from './common-schemas.js';

/** 429 for one stream or long-poll too many (src/http/stream-slots.ts). */
export const streamRefusal = problem(['too_many_streams'], ['Retry-After']);

export const jobEventsSchema = {
  operationId: 'streamJobEvents',
  tags: ['Jobs'],
  summary: 'Follow a job as Server-Sent Events',
  description:
    'Each event is `event: job`, `id: <status>-<progress>` and `data: <the job object>`. The first event is the current state; the stream ends after the terminal one, or when its key is revoked or expires. Open streams and long-polls are capped per key and per account (429 `too_many_streams`).',
  params: jobIdParams,
  responses: {
    200: {
      description: 'The event stream.',
      headers: ['Cache-Control'],
      content: {
        'text/event-stream': {
          // The stream as text: an object schema of one event (OpenAPI 3.2's itemSchema, not 3.1)
          // makes openapi-python-client parse the whole stream as one JSON object.
          schema: {
            type: 'string',
            description:
              'Server-Sent Events, each `event: job`, `id: <status>-<progress>` and `data:` a `Job` (components/schemas/Job) as JSON.',
            examples: [
              'event: job\nid: processing-42\ndata: {"id":"job_…","object":"job","status":"processing","progress":42}\n\n',
            ],
          },
        },
      },
    } satisfies DocResponse,
    404: problem(['not_found']),
    429: streamRefusal,
  },
};
