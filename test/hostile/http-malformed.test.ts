// Hostile requests over raw sockets (issue 14): every malformed request, from Node's HTTP parser up
// to multipart parts and deep JSON, gets an RFC 9457 problem with a stable code — never a 500, never
// plain JSON — and leaves no stored file behind.
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectProblem, field, filePart, head, multipart, rawExchange } from './http-raw.js';

const pdf = readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));
const B = 'quire-boundary-7f3a';
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({}, { workers: false });
  key = (await server.newAccount()).key;
});
afterAll(() => server.close());

/** A POST /api/v1/jobs (or `route`) with a correct Content-Length around `body`, authenticated. */
function postJob(
  body: Buffer,
  contentType = `multipart/form-data; boundary=${B}`,
  extra: [string, string][] = [],
  route = '/api/v1/jobs',
) {
  const bytes = Buffer.concat([
    Buffer.from(
      head(`POST ${route} HTTP/1.1`, [
        ['Host', 'localhost'],
        ['Authorization', `Bearer ${key}`],
        ['Content-Type', contentType],
        ['Content-Length', String(body.length)],
        ['Connection', 'close'],
        ...extra,
      ]),
      'latin1',
    ),
    body,
  ]);
  return rawExchange(server.url, bytes);
}

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const rotate = { headers: field('tool'), body: 'rotate' };
const file = { headers: filePart('file', 'a.pdf'), body: pdf };
const angle90 = { headers: field('options'), body: '{"angle":90}' };

async function storedFiles(): Promise<string[]> {
  const root = path.join(server.dataDir, 'files');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

describe("Node's HTTP parser errors answer problem+json (clientError)", () => {
  it('Content-Length together with Transfer-Encoding: 400 invalid_request', async () => {
    const response = await rawExchange(
      server.url,
      `${head('POST /api/v1/jobs HTTP/1.1', [
        ['Host', 'localhost'],
        ['Content-Length', '5'],
        ['Transfer-Encoding', 'chunked'],
      ])}0\r\n\r\n`,
    );
    expectProblem(response, 400, 'invalid_request');
  });

  it('a negative Content-Length: 400 invalid_request', async () => {
    const response = await rawExchange(
      server.url,
      head('POST /api/v1/jobs HTTP/1.1', [
        ['Host', 'localhost'],
        ['Content-Length', '-1'],
      ]),
    );
    expectProblem(response, 400, 'invalid_request');
  });

  it('a 100 KB boundary (headers over 16 KiB): 431 headers_too_large', async () => {
    const response = await postJob(Buffer.from('x'), `multipart/form-data; boundary=${'b'.repeat(100_000)}`);
    expectProblem(response, 431, 'headers_too_large');
  });

  it('a flood of 2,000 headers: 431 headers_too_large', async () => {
    const many: [string, string][] = Array.from({ length: 2_000 }, (_, i) => [`x-h${i}`, 'v'.repeat(20)]);
    const response = await rawExchange(server.url, head('GET /healthz HTTP/1.1', [['Host', 'x'], ...many]));
    expectProblem(response, 431, 'headers_too_large');
  });

  it('a path of 20,000 characters (over the header limit): 431 headers_too_large', async () => {
    const response = await rawExchange(
      server.url,
      head(`GET /api/v1/jobs/${'a'.repeat(20_000)} HTTP/1.1`, [['Host', 'x']]),
    );
    expectProblem(response, 431, 'headers_too_large');
  });

  it('an invalid chunk size: 400 invalid_request', async () => {
    const response = await rawExchange(
      server.url,
      `${head('POST /api/v1/jobs HTTP/1.1', [
        ['Host', 'localhost'],
        ['Transfer-Encoding', 'chunked'],
      ])}zz\r\nhello\r\n0\r\n\r\n`,
    );
    expect(response.status).not.toBe(500);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('a header name with a space: 400 invalid_request', async () => {
    const response = await rawExchange(
      server.url,
      head('GET /healthz HTTP/1.1', [
        ['Host', 'x'],
        ['Bad Name', 'v'],
      ]),
    );
    expectProblem(response, 400, 'invalid_request');
  });

  it('an HTTP/1.1 request without Host: 400 invalid_request (RFC 9112 §3.2)', async () => {
    const response = await rawExchange(server.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectProblem(response, 400, 'invalid_request');
  });

  it('an HTTP/1.0 request without Host is still served', async () => {
    const response = await rawExchange(server.url, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(response.status).toBe(200);
  });

  it('a garbage request line: 400 invalid_request', async () => {
    const response = await rawExchange(server.url, 'NOT HTTP AT ALL\r\n\r\n');
    expectProblem(response, 400, 'invalid_request');
  });
});

describe('router refusals answer problem+json', () => {
  it('a path segment over 4,096 characters: 414 uri_too_long, without echoing the path', async () => {
    const long = 'a'.repeat(5_000);
    const response = await rawExchange(
      server.url,
      head(`GET /api/v1/jobs/${long} HTTP/1.1`, [
        ['Host', 'x'],
        ['Connection', 'close'],
      ]),
    );
    expectProblem(response, 414, 'uri_too_long');
    expect(response.body).not.toContain(long);
  });
});

describe('malformed multipart bodies: 400 with a stable code, nothing stored', () => {
  it('a body with no closing boundary (file part cut): invalid_multipart', async () => {
    const whole = multipart(B, [rotate, file]);
    const cut = whole.subarray(0, whole.length - `\r\n--${B}--\r\n`.length - 10);
    expectProblem(await postJob(cut), 400, 'invalid_multipart');
  });

  it('multipart/form-data without a boundary: invalid_multipart', async () => {
    expectProblem(
      await postJob(multipart(B, [rotate, file]), 'multipart/form-data'),
      400,
      'invalid_multipart',
    );
  });

  it('a 300-character boundary (past the parser’s limit, RFC 2046 allows 70): invalid_multipart', async () => {
    const long = 'b'.repeat(300);
    expectProblem(
      await postJob(multipart(long, [rotate, file]), `multipart/form-data; boundary=${long}`),
      400,
      'invalid_multipart',
    );
  });

  it('a chunked body that ends inside a part: invalid_multipart', async () => {
    const whole = multipart(B, [rotate, file]);
    const part = whole.subarray(0, 600);
    const bytes = `${head('POST /api/v1/jobs HTTP/1.1', [
      ['Host', 'localhost'],
      ['Authorization', `Bearer ${key}`],
      ['Content-Type', `multipart/form-data; boundary=${B}`],
      ['Transfer-Encoding', 'chunked'],
      ['Connection', 'close'],
    ])}${part.length.toString(16)}\r\n`;
    const response = await rawExchange(
      server.url,
      Buffer.concat([Buffer.from(bytes, 'latin1'), part, Buffer.from('\r\n0\r\n\r\n')]),
    );
    expectProblem(response, 400, 'invalid_multipart');
  });

  it('a part header with no colon: a 400 problem', async () => {
    const body = Buffer.from(`--${B}\r\nthis is not a header\r\n\r\nrotate\r\n--${B}--\r\n`);
    const response = await postJob(body);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('a part header line of 100 KB: a 400 problem', async () => {
    const body = multipart(B, [
      { headers: `${field('tool')}\r\nX-Pad: ${'p'.repeat(100_000)}`, body: 'rotate' },
      file,
    ]);
    const response = await postJob(body);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('only the closing boundary: invalid_request naming the missing tool', async () => {
    const problem = expectProblem(await postJob(Buffer.from(`--${B}--\r\n`)), 400, 'invalid_request');
    expect(problem.errors).toEqual([{ field: 'tool', detail: 'is required' }]);
  });

  it('an empty body: invalid_request', async () => {
    expectProblem(await postJob(Buffer.alloc(0)), 400, 'invalid_request');
  });

  it('a part with no Content-Disposition is ignored, so the tool is missing: invalid_request', async () => {
    const body = multipart(B, [{ headers: 'Content-Type: text/plain', body: 'rotate' }, file]);
    expectProblem(await postJob(body), 400, 'invalid_request');
  });

  it('the tool part twice: invalid_request', async () => {
    expectProblem(await postJob(multipart(B, [rotate, rotate, file])), 400, 'invalid_request');
  });

  it('the options part twice: invalid_request', async () => {
    const options = { headers: field('options'), body: '{"angle":90}' };
    expectProblem(await postJob(multipart(B, [rotate, options, options, file])), 400, 'invalid_request');
  });

  it('a file before a tool part naming no tool: unknown_tool, and the stored file is deleted', async () => {
    const before = await storedFiles();
    const body = multipart(B, [file, { headers: field('tool'), body: 'no-such-tool' }]);
    expectProblem(await postJob(body), 400, 'unknown_tool');
    expect(await storedFiles()).toEqual(before);
  });

  it('an empty part name: invalid_request', async () => {
    expectProblem(
      await postJob(multipart(B, [rotate, { headers: field(''), body: 'x' }, file])),
      400,
      'invalid_request',
    );
  });

  it('a NUL in a part name: invalid_request', async () => {
    expectProblem(
      await postJob(multipart(B, [rotate, { headers: field('opt\0ions'), body: '{}' }, file])),
      400,
      'invalid_request',
    );
  });

  it('a part named __proto__: invalid_request', async () => {
    expectProblem(
      await postJob(multipart(B, [rotate, { headers: field('__proto__'), body: '{}' }, file])),
      400,
      'invalid_request',
    );
  });

  it('invalid UTF-8 inside an options string: invalid_options', async () => {
    const options = {
      headers: field('options'),
      body: Buffer.concat([Buffer.from('{"angle":"'), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}')]),
    };
    expectProblem(await postJob(multipart(B, [rotate, options, file])), 400, 'invalid_options');
  });

  it('invalid UTF-8 outside any string in options: invalid_request (not JSON)', async () => {
    const options = { headers: field('options'), body: Buffer.from([0x7b, 0xff, 0x7d]) };
    expectProblem(await postJob(multipart(B, [rotate, options, file])), 400, 'invalid_request');
  });

  it.each([
    ['an array', '[1,2]'],
    ['null', 'null'],
    ['a string', '"angle"'],
  ])('options that are %s, not an object: invalid_request', async (_name, text) => {
    expectProblem(
      await postJob(multipart(B, [rotate, { headers: field('options'), body: text }, file])),
      400,
      'invalid_request',
    );
  });

  it('a JSON-typed options part that is not JSON: invalid_multipart', async () => {
    const options = { headers: field('options', 'application/json'), body: '{"angle":' };
    expectProblem(await postJob(multipart(B, [rotate, options, file])), 400, 'invalid_multipart');
  });

  it('a JSON-typed options part over 64 KiB: invalid_options at /options, for a job and a batch alike', async () => {
    // Under the 256 KiB the parser reads of a field, so the part reaches our own cap with its name.
    const big = {
      headers: field('options', 'application/json'),
      body: JSON.stringify({ pad: 'p'.repeat(100_000) }),
    };
    for (const route of ['/api/v1/jobs', '/api/v1/batches']) {
      const body = multipart(B, [rotate, big, file]);
      const problem = expectProblem(await postJob(body, undefined, [], route), 400, 'invalid_options');
      expect(problem.errors).toEqual([{ pointer: '/options', detail: 'is larger than 65536 bytes' }]);
    }
  });

  it('a JSON-typed tool part that is a number: unknown_tool', async () => {
    expectProblem(
      await postJob(multipart(B, [{ headers: field('tool', 'application/json'), body: '5' }, file])),
      400,
      'unknown_tool',
    );
  });

  it('a nested multipart/mixed part in place of the file: invalid_request', async () => {
    const inner = multipart('inner', [file]);
    const nested = {
      headers: `${field('file')}\r\nContent-Type: multipart/mixed; boundary=inner`,
      body: inner,
    };
    expectProblem(await postJob(multipart(B, [rotate, nested])), 400, 'invalid_request');
  });

  it('a file that is not a PDF under a PDF filename and type: unsupported_file', async () => {
    const fake = { headers: filePart('file', 'a.pdf'), body: 'MZ\x90\x00 this is an executable' };
    expectProblem(await postJob(multipart(B, [rotate, fake])), 400, 'unsupported_file');
  });

  it('a file part under another name: invalid_request', async () => {
    expectProblem(
      await postJob(multipart(B, [rotate, { headers: filePart('upload', 'a.pdf'), body: pdf }])),
      400,
      'invalid_request',
    );
  });

  it('a text part of 70 KB sent as a file: invalid_options', async () => {
    const big = {
      headers: filePart('options', 'o.json', 'application/octet-stream'),
      body: `{"x":"${'a'.repeat(70_000)}"}`,
    };
    expectProblem(await postJob(multipart(B, [rotate, big, file])), 400, 'invalid_options');
  });

  it('a plain options part of 70 KB: invalid_options, not silently cut', async () => {
    const big = { headers: field('options'), body: `{"x":"${'a'.repeat(70_000)}"}` };
    const problem = expectProblem(await postJob(multipart(B, [rotate, big, file])), 400, 'invalid_options');
    expect(problem.errors).toEqual([{ pointer: '/options', detail: 'is larger than 65536 bytes' }]);
  });

  it.each([
    ['text/plain', 415, 'unsupported_media_type'],
    ['application/json', 415, 'unsupported_media_type'],
    ['multipart/mixed; boundary=x', 415, 'unsupported_media_type'],
  ] as const)('Content-Type %s: %i %s', async (type, status, code) => {
    expectProblem(await postJob(multipart(B, [rotate, file]), type), status, code);
  });

  it('a charset parameter before the boundary, in odd case, still parses: the job is created', async () => {
    const response = await postJob(
      multipart(B, [rotate, angle90, file]),
      `Multipart/Form-Data; CHARSET=utf-16; boundary="${B}"`,
    );
    expect(response.status, response.body).toBe(201);
  });

  it('a boundary of odd but legal characters still parses: the job is created', async () => {
    const odd = "'()+_,-./:=? 09az";
    const response = await postJob(
      multipart(odd, [rotate, angle90, file]),
      `multipart/form-data; boundary="${odd}"`,
    );
    expect(response.status, response.body).toBe(201);
  });
});

describe('deep and ill-formed JSON in options, metadata and tool', () => {
  it.each(['options', 'metadata', 'tool'])(
    'a JSON-typed %s part of 5,000 nested [: 400, not 500',
    async (name) => {
      const deep = { headers: field(name, 'application/json'), body: deepArray(5_000) };
      const parts = name === 'tool' ? [deep, file] : [rotate, deep, file];
      const code = { options: 'invalid_options', metadata: 'invalid_metadata', tool: 'unknown_tool' }[name]!;
      expectProblem(await postJob(multipart(B, parts)), 400, code);
    },
  );

  it('options nested 20,000 deep as a JSON-typed part: invalid_options with a pointer', async () => {
    const options = { headers: field('options', 'application/json'), body: deepObject(20_000) };
    const problem = expectProblem(
      await postJob(multipart(B, [rotate, options, file])),
      400,
      'invalid_options',
    );
    expect(problem.errors).toEqual([
      { pointer: `/options${'/a'.repeat(32)}`, detail: 'is nested deeper than 32 levels' },
    ]);
  });

  it('options nested 20,000 deep as text: invalid_options', async () => {
    const options = { headers: field('options'), body: deepObject(20_000) };
    expectProblem(await postJob(multipart(B, [rotate, options, file])), 400, 'invalid_options');
  });

  it('options nested 30,000 deep: invalid_options', async () => {
    const options = { headers: field('options'), body: deepObject(30_000) };
    expectProblem(await postJob(multipart(B, [rotate, options, file])), 400, 'invalid_options');
  });

  it('metadata with a lone surrogate: invalid_metadata pointing at the value', async () => {
    const metadata = { headers: field('metadata'), body: '{"title":"\\ud800"}' };
    const problem = expectProblem(
      await postJob(multipart(B, [rotate, metadata, file])),
      400,
      'invalid_metadata',
    );
    expect(problem.errors).toEqual([
      { pointer: '/metadata/title', detail: 'must not contain a lone UTF-16 surrogate' },
    ]);
  });

  it('a lone low surrogate in a metadata key: invalid_metadata', async () => {
    const metadata = { headers: field('metadata'), body: '{"a\\udc00":"x"}' };
    expectProblem(await postJob(multipart(B, [rotate, metadata, file])), 400, 'invalid_metadata');
  });

  it('a lone surrogate in a nested options string: invalid_options pointing at it', async () => {
    const options = { headers: field('options'), body: '{"pages":["1-2\\udbff"]}' };
    const problem = expectProblem(
      await postJob(multipart(B, [rotate, options, file])),
      400,
      'invalid_options',
    );
    expect(problem.errors).toEqual([
      { pointer: '/options/pages/0', detail: 'must not contain a lone UTF-16 surrogate' },
    ]);
  });

  it('a well-formed surrogate pair (an emoji) in metadata is accepted', async () => {
    const metadata = { headers: field('metadata'), body: '{"title":"\\ud83d\\ude00 ok"}' };
    const response = await postJob(multipart(B, [rotate, angle90, metadata, file]));
    expect(response.status, response.body).toBe(201);
    expect(JSON.parse(response.body).metadata).toEqual({ title: '😀 ok' });
  });
});

describe('the server never logged an internal error for any of this', () => {
  it('has no error-level log line', () => {
    const errors = server.logs.filter((line) => JSON.parse(line).level >= 50);
    expect(errors).toEqual([]);
  });
});
