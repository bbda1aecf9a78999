// The OpenAPI 3.1 document, served at /openapi.json and rendered at /docs. It is built from the routes
// as they are registered (their validation schemas and declared answers) and from the tool catalogue,
// so it cannot drift from the code; the 405 answers and other hidden routes are not operations.
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ToolCatalog } from '../tools/framework/catalog.js';
import type { AppDeps } from './deps.js';
import { registerDocsPage } from './docs-page.js';
import { jobRequestBody, type RequestKind, toolOptionComponents } from './openapi-catalog.js';
import { eventComponents, WEBHOOK_EVENTS_TAG, webhookEvents } from './openapi-webhooks.js';
import { accountComponents } from './routes/account-schemas.js';
import { batchComponents } from './routes/batch-schemas.js';
import {
  type DocResponse,
  ErrorCodeSchema,
  type HeaderName,
  ProblemSchema,
  problem,
  responseHeaders,
} from './routes/common-schemas.js';
import { jobComponents } from './routes/job-resource-schemas.js';
import { opsComponents, opsSchemas } from './routes/ops-schemas.js';
import { recipeComponents } from './routes/recipe-schemas.js';
import { transferComponents } from './routes/transfer-schemas.js';
import { webhookComponents } from './routes/webhook-schemas.js';
import { toolComponents } from './tool-list-schema.js';

declare module 'fastify' {
  interface FastifySchema {
    /** Stable camelCase name, the method name generated clients get. */
    operationId?: string;
    tags?: readonly string[];
    summary?: string;
    description?: string;
    /** Not an operation of the API (documentation assets, the generated 405 answers). */
    hide?: boolean;
    /** Every answer the route gives by status, beside the ones every keyed route shares. */
    responses?: Readonly<Record<number, DocResponse>>;
    /** A job or batch request: its multipart body is described from the tool catalogue. */
    multipartBody?: RequestKind;
    /** The JSON body may be omitted. */
    requestBodyOptional?: boolean;
    /** Request headers the route reads (the tus endpoints), as header parameters. */
    docHeaders?: Record<string, { description: string; required: boolean; schema: unknown }>;
    /** A body Fastify does not parse (a tus chunk), as an OpenAPI Request Body Object. */
    docBody?: Record<string, unknown>;
    /** Honours `Prefer: wait=N` (RFC 7240), answering with `Preference-Applied`. */
    preferWait?: boolean;
  }
}

interface DocumentedRoute {
  method: string;
  url: string;
  scope: Scope;
  schema: NonNullable<RouteOptions['schema']>;
}

const TAGS = [
  {
    name: 'Jobs',
    description:
      'Create, follow, download, cancel and delete jobs (docs/api.md §2), one by one or in batches (§11).',
  },
  {
    name: 'Uploads',
    description: 'Resumable uploads (tus 1.0) for large files, used by jobs as `upload_id`.',
  },
  { name: 'Recipes', description: 'Saved, versioned chains of steps that jobs and batches name (§13).' },
  { name: 'Tools', description: 'The tool catalogue and the caller’s limits (§3).' },
  { name: 'Files', description: 'Temporary download links (§2); no API key.' },
  { name: 'Webhooks', description: 'Webhook endpoints and their deliveries (§6).' },
  {
    name: WEBHOOK_EVENTS_TAG,
    description: 'What Quire POSTs to a registered endpoint, per event type (docs/webhooks.md).',
  },
  { name: 'Accounts', description: 'Accounts, plans and API keys; scope `admin` (§1).' },
  { name: 'Operations', description: 'Entry point, health, readiness, metrics, this document (§9).' },
];

/** `config.scope` of a route (app.ts `RouteScope`): scopes, `any_key`, `public`, or none (not /api/). */
type Scope = string | readonly string[] | undefined;

const SECURITY = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

export async function registerDocs(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => {
    // HEAD is answered for every GET route by Fastify itself; its answers are the GET's.
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    if (route.config?.methodNotAllowed || route.schema?.hide || !route.schema?.operationId) return;
    for (const method of methods) {
      routes.push({
        method: String(method),
        url: route.url,
        scope: route.config?.scope,
        schema: route.schema,
      });
    }
  });
  let document: Record<string, unknown> | undefined;
  const built = () => (document ??= buildDocument(routes, deps.catalog));
  app.get('/openapi.json', { config: { scope: 'public' }, schema: opsSchemas.openapi }, async () => built());
  await registerDocsPage(app, built);
}

export function buildDocument(
  routes: readonly DocumentedRoute[],
  catalog: ToolCatalog,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, catalog);
  }
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Quire API',
      version: '1.0.0',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description:
        'Job-based PDF processing: upload files with a tool and its options, follow the job, download the result through a temporary link. Errors are RFC 9457 problem documents (`application/problem+json`) with a stable `code`. The contract in prose: docs/api.md.',
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: TAGS,
    paths,
    webhooks: webhookEvents(),
    components: {
      schemas: {
        ErrorCode: ErrorCodeSchema,
        Problem: ProblemSchema,
        ...jobComponents,
        ...transferComponents,
        ...batchComponents,
        ...recipeComponents,
        ...toolComponents,
        ...toolOptionComponents(catalog),
        ...accountComponents,
        ...webhookComponents,
        ...opsComponents,
        ...eventComponents(),
      },
      headers: responseHeaders,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: 1–255 printable ASCII characters. A finished request with the same key is answered again with `Idempotent-Replayed: true` (docs/api.md §4).',
          // Printable ASCII with at least one non-blank (the key is trimmed); an RFC 9651 sf-string
          // ("…") is printable ASCII too.
          schema: {
            type: 'string',
            minLength: 1,
            maxLength: 255,
            pattern: '^[\\x20-\\x7e]*[\\x21-\\x7e][\\x20-\\x7e]*$',
          },
        },
        PreferWait: {
          name: 'Prefer',
          in: 'header',
          required: false,
          description:
            '`wait=N` (RFC 7240) holds the answer until the job ends or N seconds pass, capped by QUIRE_PREFER_WAIT_MAX_S; `Preference-Applied` says what was honoured (docs/api.md §2). Other preferences are ignored.',
          schema: { type: 'string', examples: ['wait=30'] },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `Authorization: Bearer qk_live_…`.',
        },
        apiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'An API key: `X-API-Key: qk_live_…`.',
        },
      },
    },
  };
  // TypeBox marks its schemas with symbols; the published document is plain JSON.
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}

function operation(route: DocumentedRoute, catalog: ToolCatalog): Record<string, unknown> {
  const { schema, scope } = route;
  const keyed = scope !== undefined && scope !== 'public';
  const idempotent = keyed && (route.method === 'POST' || route.method === 'PUT');
  const parameters = [
    ...parametersOf(schema.params, 'path'),
    ...parametersOf(schema.querystring, 'query'),
    ...parametersOf(schema.headers, 'header'),
    ...(idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ...(schema.preferWait ? [{ $ref: '#/components/parameters/PreferWait' }] : []),
    ...Object.entries(schema.docHeaders ?? {}).map(([name, h]) => ({ name, in: 'header', ...h })),
  ];
  return {
    operationId: schema.operationId,
    tags: schema.tags,
    summary: schema.summary,
    description: [schema.description, scopeNote(scope)].filter(Boolean).join('\n\n'),
    security: keyed ? SECURITY : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...requestBody(schema, catalog),
    responses: responsesOf(schema.responses ?? {}, scope, idempotent),
  };
}

function scopeNote(scope: Scope): string {
  if (scope === 'any_key') return 'Any valid API key.';
  if (scope === undefined || scope === 'public') return 'No API key.';
  if (typeof scope === 'string') return `Scope \`${scope}\`.`;
  return `Scopes ${scope.map((s) => `\`${s}\``).join(', ')}: the key needs every one.`;
}

function parametersOf(schema: unknown, where: 'path' | 'query' | 'header'): Record<string, unknown>[] {
  const object = schema as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(object?.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || (object.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function requestBody(schema: NonNullable<RouteOptions['schema']>, catalog: ToolCatalog) {
  if (schema.multipartBody) return { requestBody: jobRequestBody(catalog, schema.multipartBody) };
  if (schema.docBody) return { requestBody: schema.docBody };
  if (!schema.body) return {};
  const required = !schema.requestBodyOptional;
  return { requestBody: { required, content: { 'application/json': { schema: schema.body } } } };
}

/** The route's own answers plus those every route, every keyed route and every keyed POST share. */
function responsesOf(
  own: Readonly<Record<number, DocResponse>>,
  scope: Scope,
  idempotent: boolean,
): Record<string, unknown> {
  const keyed = scope !== undefined && scope !== 'public';
  const shared: [number, DocResponse][] = [
    [400, problem(['invalid_request'])],
    [500, problem(['internal_error'])],
  ];
  if (keyed) {
    shared.push([401, problem(['unauthenticated', 'invalid_api_key'], ['WWW-Authenticate'])]);
    if (scope !== 'any_key') shared.push([403, problem(['insufficient_scope'])]);
    shared.push([429, problem(['rate_limited'], ['Retry-After'])]);
  }
  if (idempotent) {
    shared.push([400, problem(['invalid_idempotency_key'])]);
    shared.push([409, problem(['idempotency_key_in_use'], ['Retry-After'])]);
    shared.push([422, problem(['idempotency_key_reused'])]);
  }
  const merged = new Map<number, DocResponse>(Object.entries(own).map(([s, r]) => [Number(s), r]));
  for (const [status, response] of shared) {
    const existing = merged.get(status);
    merged.set(status, existing ? mergeResponses(existing, response) : response);
  }
  const everywhere: HeaderName[] = ['X-Request-Id'];
  if (keyed) everywhere.push('RateLimit', 'RateLimit-Policy');
  if (idempotent) everywhere.push('Idempotent-Replayed');
  return Object.fromEntries(
    [...merged.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, response]) => [String(status), renderResponse(response, everywhere)]),
  );
}

function mergeResponses(a: DocResponse, b: DocResponse): DocResponse {
  return {
    description: a.description || b.description,
    headers: [...new Set([...(a.headers ?? []), ...(b.headers ?? [])])],
    extraHeaders: { ...b.extraHeaders, ...a.extraHeaders },
    content: a.content ?? b.content,
    ...(a.codes || b.codes ? { codes: [...new Set([...(a.codes ?? []), ...(b.codes ?? [])])] } : {}),
  };
}

function renderResponse(response: DocResponse, everywhere: readonly HeaderName[]): Record<string, unknown> {
  const names = [...new Set([...everywhere, ...(response.headers ?? [])])];
  const headers: Record<string, unknown> = Object.fromEntries(
    names.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
  Object.assign(headers, response.extraHeaders);
  const codes = response.codes?.map((code) => `\`${code}\``).join(', ');
  const description = codes
    ? `${response.description ? `${response.description} ` : ''}Problem with \`code\` ${codes}.`
    : response.description;
  return { description, headers, ...(response.content ? { content: response.content } : {}) };
}
