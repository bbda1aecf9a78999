// Checks every response the shared test client receives against the server's own /openapi.json: the
// status is documented for the operation, every header it sends is documented (and the required ones
// are there), and a JSON body validates against the schema for its content type. Objects are checked
// closed (a field the document does not list fails), though the published document leaves them open.
import { Ajv2020 } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

/** Transport headers every response may carry; they describe the connection, not the API. */
const TRANSPORT = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

interface Operation {
  pattern: RegExp;
  method: string;
  pointer: string;
  responses: Record<string, Json>;
}

export class OpenApiCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly operations: Operation[] = [];

  constructor(private readonly document: Json) {
    // Times are RFC 3339 UTC with whole seconds (docs/api.md conventions).
    this.ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    this.ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S+$/i);
    this.ajv.addFormat('binary', () => true);
    this.ajv.addSchema(closeObjects(structuredClone(document)) as Json, 'doc', undefined, false);
    const paths = document.paths as Record<string, Record<string, Json>>;
    for (const [path, item] of Object.entries(paths)) {
      const literal = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      const pattern = new RegExp(`^${literal.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(item)) {
        const pointer = `#/paths/${pointerToken(path)}/${method}`;
        this.operations.push({
          pattern,
          method,
          pointer,
          responses: operation.responses as Record<string, Json>,
        });
      }
    }
  }

  /** The mismatches between `response` and the document (empty when it conforms). */
  async check(method: string, url: URL, response: Response): Promise<string[]> {
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const operation = this.operations.find((o) => o.method === verb && o.pattern.test(url.pathname));
    const where = `${method} ${url.pathname} → ${response.status}`;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!operation) {
      // Not an operation (unknown path, wrong method): still a problem document.
      if (type !== 'application/problem+json') return [];
      return this.validate('#/components/schemas/Problem', await response.clone().json(), where);
    }
    const status = String(response.status);
    const documented =
      operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses.default;
    if (!documented) return [`${where}: status not documented`];
    const pointer = `${operation.pointer}/responses/${status}`;
    const problems = this.checkHeaders(documented, response, where);
    const content = documented.content as Record<string, Json> | undefined;
    if (!content || method.toUpperCase() === 'HEAD' || response.status === 204) return problems;
    const media = Object.keys(content).find((m) => mediaMatches(m, type));
    if (!media) return [...problems, `${where}: content type ${type} not documented`];
    if (!/json$/.test(media)) return problems;
    const body = await response.clone().json();
    return [...problems, ...this.validate(`${pointer}/content/${pointerToken(media)}/schema`, body, where)];
  }

  private checkHeaders(documented: Json, response: Response, where: string): string[] {
    const headers = this.resolveHeaders((documented.headers ?? {}) as Record<string, Json>);
    const problems: string[] = [];
    for (const name of response.headers.keys()) {
      if (!TRANSPORT.has(name) && !headers.has(name))
        problems.push(`${where}: header ${name} not documented`);
    }
    for (const [name, header] of headers) {
      if (header.required === true && !response.headers.has(name))
        problems.push(`${where}: required header ${name} missing`);
    }
    return problems;
  }

  private resolveHeaders(headers: Record<string, Json>): Map<string, Json> {
    const components = (this.document.components as Json).headers as Record<string, Json>;
    return new Map(
      Object.entries(headers).map(([name, header]) => {
        const target = typeof header.$ref === 'string' ? components[header.$ref.split('/').pop()!]! : header;
        return [name.toLowerCase(), target];
      }),
    );
  }

  private validate(pointer: string, body: unknown, where: string): string[] {
    const validate = this.ajv.getSchema(`doc${pointer}`) ?? this.ajv.compile({ $ref: `doc${pointer}` });
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }
}

function pointerToken(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function mediaMatches(range: string, type: string): boolean {
  if (range === '*/*' || range === type) return true;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1));
}

/** Every object schema with listed properties and no word on others is made closed. */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) {
    for (const item of node) closeObjects(item);
  } else if (node !== null && typeof node === 'object') {
    const schema = node as Json;
    if (schema.type === 'object' && schema.properties && !('additionalProperties' in schema)) {
      schema.additionalProperties = false;
    }
    for (const value of Object.values(schema)) closeObjects(value);
  }
  return node;
}

const checks = new WeakMap<typeof fetch, Map<string, Promise<OpenApiCheck>>>();

/** The check for the server behind `send` and `baseUrl`, from its live document (fetched once). */
export function openApiCheckFor(send: typeof fetch, baseUrl: string): Promise<OpenApiCheck> {
  let byBase = checks.get(send);
  if (!byBase) {
    byBase = new Map();
    checks.set(send, byBase);
  }
  let check = byBase.get(baseUrl);
  if (!check) {
    check = send(new URL('/openapi.json', baseUrl))
      .then((r) => r.json())
      .then((document) => new OpenApiCheck(document as Json));
    byBase.set(baseUrl, check);
  }
  return check;
}
