// Structured JSON logs (docs/api.md §10). Redaction is a safety net: code logs ids, codes and sizes,
// never bodies, file names of uploads, passwords, keys, tokens or engine stderr.
import { type Logger, pino, stdSerializers } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers.cookie',
  '*.password',
  '*.user_password',
  '*.owner_password',
  '*.secret',
  '*.token',
  '*.url',
  'options',
  '*.options',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'quire', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: stdSerializers.err, busboyOptions: withoutHeaders },
    },
    destination ?? process.stdout,
  );
}

/**
 * @fastify/multipart logs, at trace, the options it hands busboy: the request's headers merged into
 * the limits, so the API key rode along on every upload. The limits are all that line is for.
 */
function withoutHeaders(options: unknown): unknown {
  if (typeof options !== 'object' || options === null) return options;
  const { headers: _headers, ...rest } = options as Record<string, unknown>;
  return rest;
}

export type { Logger };
