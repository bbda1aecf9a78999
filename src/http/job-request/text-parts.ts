// The text parts of a job or batch request (docs/api.md §2): read whether sent as a plain field, a
// JSON-typed field or a file, and bounded (size, depth, well-formed text) before anything walks them.
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { QuireError } from '../../errors/quire-error.js';
import { escapePointer, jsonShapeError } from './json-shape.js';
import { METADATA_MAX_KEY, METADATA_MAX_PAIRS, METADATA_MAX_VALUE, TEXT_PART_MAX_BYTES } from './limits.js';

/** The parts read into the spec by `spec-parts.ts` (the others have readers of their own). */
export const TEXT_PARTS = ['tool', 'options', 'metadata', 'steps'];

/** A text part's content: its text, or the value the plugin already parsed from a JSON-typed part. */
export type FieldValue = { text: string } | { parsed: unknown };

/** A part sent as application/json arrives already parsed by the multipart plugin. */
export function fieldValue(part: MultipartValue): FieldValue {
  if (part.mimetype !== 'application/json') {
    if (part.valueTruncated) throw partTooLarge(part.fieldname);
    return { text: String(part.value) };
  }
  return { parsed: part.value };
}

/** Clients that send JSON as a Blob (FormData) produce a file part; it is read as the text it is. */
export async function fileText(part: MultipartFile): Promise<FieldValue> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > TEXT_PART_MAX_BYTES) throw partTooLarge(part.fieldname);
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}

/** Any text part's content, however it was sent. */
export function partValue(part: MultipartFile | MultipartValue): Promise<FieldValue> | FieldValue {
  return part.type === 'field' ? fieldValue(part) : fileText(part);
}

/** A part read as text (the URL parts): a JSON-typed one is written back only once it is bounded. */
export function partText(name: string, value: FieldValue): string {
  if ('text' in value) return value.text;
  const shape = jsonShapeError(value.parsed);
  if (shape) {
    throw new QuireError('invalid_request', `The "${name}" part ${shape.detail}.`, {
      errors: [{ field: name, detail: shape.detail }],
    });
  }
  return typeof value.parsed === 'string' ? value.parsed : JSON.stringify(value.parsed);
}

function partTooLarge(name: string): QuireError {
  const detail = `is larger than ${TEXT_PART_MAX_BYTES} bytes`;
  if (name === 'options' || name === 'metadata')
    return new QuireError(`invalid_${name}`, `The "${name}" part ${detail}.`, {
      errors: [{ pointer: `/${name}`, detail }],
    });
  return new QuireError('invalid_request', `The "${name}" part ${detail}.`, {
    errors: [{ field: name, detail }],
  });
}

export function toolName(value: FieldValue): string {
  if ('text' in value) return value.text;
  if (typeof value.parsed === 'string') return value.parsed;
  throw new QuireError('unknown_tool', 'The "tool" part must be a tool name.', {
    errors: [{ field: 'tool', detail: 'is not a known tool' }],
  });
}

/** The part as a JSON object within the depth, size and well-formed-text bounds, or its error. */
export function boundedObject(
  value: FieldValue,
  field: 'options' | 'metadata',
  code: 'invalid_options' | 'invalid_metadata',
): Record<string, unknown> {
  const parsed = 'text' in value ? parseJson(value.text, field) : value.parsed;
  const shape = jsonShapeError(parsed);
  if (shape) {
    throw new QuireError(code, `The "${field}" part ${shape.detail}.`, {
      errors: [{ pointer: `/${field}${shape.pointer}`, detail: shape.detail }],
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new QuireError('invalid_request', `The "${field}" part must be a JSON object.`, {
      errors: [{ field, detail: 'must be a JSON object' }],
    });
  }
  return parsed as Record<string, unknown>;
}

function parseJson(value: string, field: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new QuireError('invalid_request', `The "${field}" part is not valid JSON.`, {
      errors: [{ field, detail: 'is not valid JSON' }],
    });
  }
}

export function parseMetadata(value: FieldValue): Record<string, string> {
  const parsed = boundedObject(value, 'metadata', 'invalid_metadata');
  const errors = Object.entries(parsed).flatMap(([key, v]) => {
    const pointer = `/metadata/${escapePointer(key)}`;
    if (typeof v !== 'string') return [{ pointer, detail: 'must be a string' }];
    if (key.length === 0 || key.length > METADATA_MAX_KEY)
      return [{ pointer, detail: `key must be 1–${METADATA_MAX_KEY} characters` }];
    if (v.length > METADATA_MAX_VALUE)
      return [{ pointer, detail: `must be at most ${METADATA_MAX_VALUE} characters` }];
    return [];
  });
  if (Object.keys(parsed).length > METADATA_MAX_PAIRS)
    errors.push({ pointer: '/metadata', detail: `at most ${METADATA_MAX_PAIRS} pairs` });
  if (errors.length > 0) throw new QuireError('invalid_metadata', 'The metadata is not valid.', { errors });
  return parsed as Record<string, string>;
}
