// Schemas of a job's transfers (docs/api.md §2, "Import, export and callbacks"): what a `file_url` or
// `export` part may hold, and the host-only views of them on the job. URLs and headers are secrets, so
// the job shows hosts alone.
import { Type } from '@sinclair/typebox';

const host = Type.String({
  description: 'The host (and port, if not the default) of the URL; never the URL.',
});

const targetProperties = {
  url: Type.String({ format: 'uri', maxLength: 8192, description: 'An absolute `http` or `https` URL.' }),
  headers: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      maxProperties: 20,
      description:
        'Sent with the request (single-line values; not `Host`, `Content-Length`, `Transfer-Encoding`, `Connection`, `Expect`).',
    }),
  ),
};

export const transferComponents = {
  TransferSource: Type.Object(targetProperties, {
    description: 'A `file_url` part sent as JSON, for a link that needs headers (e.g. `Authorization`).',
  }),
  ExportTarget: Type.Object(
    {
      ...targetProperties,
      keep_result: Type.Optional(
        Type.Boolean({
          default: true,
          description: '`false` deletes the result once it is exported (`expires_at` = `completed_at`).',
        }),
      ),
    },
    { description: 'An `export` part sent as JSON: a presigned PUT URL with its headers.' },
  ),
};

/** The job's fields that show its transfers, spread into the job object. */
export const jobTransferFields = {
  batch_id: Type.Optional(Type.String({ description: 'Jobs made by a batch: the batch (`bat_…`).' })),
  export: Type.Optional(
    Type.Object(
      { host, keep_result: Type.Boolean({ description: 'Whether the result stays downloadable.' }) },
      { description: 'Jobs with an `export` part: where the result is PUT.' },
    ),
  ),
  webhook: Type.Optional(
    Type.Object({ host }, { description: 'Jobs with a `webhook_url` part: where their end is sent.' }),
  ),
};

/** On an input file fetched from a `file_url`. */
export const inputSource = Type.Optional(
  Type.Object(
    { type: Type.Literal('url'), host },
    {
      description:
        'Inputs from a `file_url` part: `size` is 0 and `content_type` empty until the worker has fetched it.',
    },
  ),
);
