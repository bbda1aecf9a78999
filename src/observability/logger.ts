// Structured JSON logs (docs/api.md §10). Redaction is a safety net: code logs ids, codes and sizes,
// never bodies, file names of uploads, passwords, keys, tokens or engine stderr.
import { type Logger, pino, stdSerializers } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
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
      serializers: { err: stdSerializers.err },
    },
    destination ?? process.stdout,
  );
}

export type { Logger };
