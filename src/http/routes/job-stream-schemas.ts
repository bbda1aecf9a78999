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
          // One event of the stream, as SSE parsers (and OpenAPI 3.2's itemSchema) see it.
          schema: {
            type: 'object',
            description:
              'One Server-Sent Event; the stream is a sequence of them. `data` is a `Job` (components/schemas/Job) as JSON.',
            required: ['data'],
            properties: {
              event: { type: 'string', const: 'job' },
              id: { type: 'string', description: '`<status>-<progress>`.' },
              data: {
                type: 'string',
                contentMediaType: 'application/json',
                contentSchema: { $ref: '#/components/schemas/Job' },
              },
              retry: { type: 'integer', minimum: 0 },
            },
            examples: [
              {
                event: 'job',
                id: 'processing-42',
                data: '{"id":"job_…","object":"job","status":"processing","progress":42}',
              },
            ],
          },
        },
      },
    } satisfies DocResponse,
    404: problem(['not_found']),
    429: streamRefusal,
  },
};
