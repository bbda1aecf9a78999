// Route schemas of the routes outside /api/v1 (docs/api.md §9) and of the temporary download link
// (§2): no API key, so no security; their bodies as components of the OpenAPI document.
import { Type } from '@sinclair/typebox';
import { type DocResponse, json, problem, ref } from './common-schemas.js';

const check = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('error')]) });

export const opsComponents = {
  Health: Type.Object({ status: Type.Literal('ok') }),
  Readiness: Type.Object(
    {
      status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
      checks: Type.Object({
        database: check,
        storage: check,
        engines: Type.Object(
          {},
          {
            description: 'Each engine program by name.',
            additionalProperties: Type.Object({
              status: Type.Union([Type.Literal('ok'), Type.Literal('missing')]),
              version: Type.Optional(Type.String()),
              reason: Type.Optional(Type.String()),
            }),
          },
        ),
      }),
    },
    { description: 'Not a problem document: each check and each engine’s version or why it is missing.' },
  ),
  Home: Type.Object(
    {
      name: Type.String(),
      description: Type.String(),
      links: Type.Object(
        {},
        {
          additionalProperties: Type.Object({ href: Type.String(), title: Type.String() }),
          description: 'Where to go next, by relation name.',
        },
      ),
    },
    { description: 'The entry point: links to the documentation, the document and the API.' },
  ),
};

const tags = ['Operations'];

const fileHeaders = {
  'Content-Disposition': {
    description: '`attachment` with the result’s file name (`filename*` for non-ASCII names).',
    required: true,
    schema: { type: 'string' },
  },
  ETag: { description: 'Strong validator, for `If-Range`.', required: true, schema: { type: 'string' } },
  'Accept-Ranges': { description: '`bytes`.', required: true, schema: { type: 'string' } },
  'X-Content-Type-Options': { description: '`nosniff`.', required: true, schema: { type: 'string' } },
} as const;
const binary = { '*/*': { schema: { type: 'string', format: 'binary' } } };

export const fileSchema = {
  operationId: 'getFile',
  tags: ['Files'],
  summary: 'Download a result through a temporary link',
  description:
    'The link from `getJobDownload`: no API key (the token is the capability), `Range` and `HEAD` supported.',
  params: {
    type: 'object',
    required: ['token'],
    properties: { token: { type: 'string', maxLength: 4096, description: 'The signed link token.' } },
  },
  responses: {
    200: {
      description: 'The file, with the result’s content type.',
      headers: ['Cache-Control'],
      extraHeaders: fileHeaders,
      content: binary,
    } satisfies DocResponse,
    206: {
      description: 'The first requested range.',
      headers: ['Cache-Control'],
      extraHeaders: {
        ...fileHeaders,
        'Content-Range': { description: 'The range sent.', required: true, schema: { type: 'string' } },
      },
      content: binary,
    } satisfies DocResponse,
    403: problem(['link_invalid']),
    410: problem(['result_expired']),
    // The token is the one path parameter long enough for these: percent-encoded, a token near its
    // 4096-character limit can pass the router's segment limit (414) or Node's 16 KiB request head (431).
    414: problem(['uri_too_long']),
    431: problem(['headers_too_large']),
    416: {
      ...problem(['range_not_satisfiable']),
      extraHeaders: {
        'Content-Range': { description: '`bytes */<size>`.', required: true, schema: { type: 'string' } },
        ...fileHeaders,
      },
      headers: ['Cache-Control'],
    } satisfies DocResponse,
  },
} as const;

export const opsSchemas = {
  health: {
    operationId: 'getHealth',
    tags,
    summary: 'Liveness',
    description: '200 while the process serves HTTP.',
    responses: { 200: json('Alive.', ref('Health')) },
  },
  ready: {
    operationId: 'getReadiness',
    tags,
    summary: 'Readiness',
    description: '200 when the database and storage answer and qpdf is installed, else 503.',
    responses: {
      200: json('Ready.', ref('Readiness')),
      503: json('Not ready.', ref('Readiness')),
    },
  },
  metrics: {
    operationId: 'getMetrics',
    tags,
    summary: 'Prometheus metrics',
    responses: {
      200: {
        description: 'Prometheus text exposition format.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      } satisfies DocResponse,
    },
  },
  home: {
    operationId: 'getHome',
    tags,
    summary: 'Entry point',
    description:
      'For a browser, the web app (an HTML page under a strict Content-Security-Policy; a page of links when the app was not built); for a program, JSON links to the reference (/docs), this document (/openapi.json), the tool catalogue and the health checks, when `Accept` prefers `application/json`.',
    responses: {
      200: {
        description: 'The links.',
        extraHeaders: {
          Vary: { description: '`Accept`.', schema: { type: 'string' } },
          'Content-Security-Policy': { description: 'On the HTML page.', schema: { type: 'string' } },
        },
        content: {
          'text/html': { schema: { type: 'string' } },
          'application/json': { schema: ref('Home') },
        },
      } satisfies DocResponse,
    },
  },
  openapi: {
    operationId: 'getOpenApiDocument',
    tags,
    summary: 'This OpenAPI document',
    responses: {
      200: json('The OpenAPI 3.1 document.', Type.Object({}, { additionalProperties: true })),
    },
  },
} as const;
