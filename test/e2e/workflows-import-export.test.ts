// URL imports, exports and per-job webhook URLs end to end (docs/api.md §2, §6): real servers on
// loopback serve, trickle, refuse and redirect; a real S3 server (SeaweedFS) takes presigned PUTs;
// webhook_url deliveries are verified with the Standard Webhooks reference library.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { type S3TestServer, startS3Server } from '../support/s3-server.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

const pdfPath = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const pdf = readFileSync(pdfPath);
const LIMIT_BYTES = 8 * 1024 * 1024;
const TWO_GIB = 2 * 1024 * 1024 * 1024;

/** A loopback origin whose routes the tests define; counts the bytes each route sent. */
async function origin(
  routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>,
  host = '127.0.0.1',
) {
  const sent: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (!route) return void res.writeHead(404).end();
    route(req, res);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (p: string) => `http://127.0.0.1:${port}${p}`,
    sent,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function submit(client: Client, parts: Array<[string, string | Blob, string?]>, tool = 'rotate') {
  const form = new FormData();
  form.set('tool', tool);
  form.set('options', JSON.stringify(tool === 'rotate' ? { angle: 90 } : {}));
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  const response = await client.fetch('/api/v1/jobs', { method: 'POST', body: form });
  const body = (await response.json()) as JobBody;
  if (response.status !== 201)
    throw new Error(`expected 201, got ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function download(client: Client, id: string): Promise<Buffer> {
  const link = await client.fetch(`/api/v1/jobs/${id}/download`);
  const target = link.headers.get('location')!;
  const response = await fetch(new URL(target, client.baseUrl));
  return Buffer.from(await response.arrayBuffer());
}

describe('file_url imports with private addresses allowed (the local test origin)', () => {
  let server: TestServer;
  let client: Client;
  let web: Awaited<ReturnType<typeof origin>>;
  let trickleStopped = false;

  beforeAll(async () => {
    server = await startTestServer({
      QUIRE_TRANSFERS_ALLOW_PRIVATE: 'true',
      QUIRE_IMPORT_TIMEOUT_MS: '4000',
      QUIRE_UPLOAD_MAX_FILE_BYTES: String(LIMIT_BYTES),
      QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      QUIRE_WEBHOOK_RETRY_SCHEDULE_MS: '0,300,300',
      QUIRE_WEBHOOK_POLL_MS: '50',
    });
    client = new Client(server.url, (await server.newAccount()).key);
    web = await origin({
      '/doc.pdf': (req, res) => {
        // A signed link's header arrives; the test checks it is sent, and only to this origin.
        res.writeHead(200, { 'x-auth-seen': String(req.headers.authorization ?? '') }).end(pdf);
      },
      '/needs-auth.pdf': (req, res) => {
        if (req.headers.authorization !== 'Bearer s3cret') return void res.writeHead(401).end();
        res.writeHead(200).end(pdf);
      },
      '/hop': (_req, res) => res.writeHead(302, { location: '/doc.pdf' }).end(),
      '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
      '/gone.pdf': (_req, res) => res.writeHead(404).end(),
      '/text.txt': (_req, res) => res.writeHead(200).end('plain text, not a PDF'),
      '/huge.pdf': (_req, res) => {
        // 2 GiB: a PDF header, then zeros, as fast as the reader takes them.
        res.writeHead(200, { 'content-length': String(TWO_GIB) });
        const chunk = Buffer.alloc(1024 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < TWO_GIB) {
            const piece = sent === 0 ? Buffer.concat([Buffer.from('%PDF-1.7\n'), chunk.subarray(9)]) : chunk;
            sent += piece.length;
            web.sent.huge = sent;
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => undefined);
        pump();
      },
      '/trickle.pdf': (_req, res) => {
        res.writeHead(200);
        res.write('%PDF-1.7\n');
        const timer = setInterval(() => res.write('0'), 100);
        res.on('close', () => {
          clearInterval(timer);
          trickleStopped = true;
        });
      },
    });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    await server?.close();
  });

  test('a file_url is fetched by the worker and processed; the view names only its host and a neutral name', async () => {
    const created = await submit(client, [['file_url', web.url('/doc.pdf?X-Amz-Signature=abc')]]);
    expect(created.input).toEqual({
      files: [
        {
          name: 'file-1',
          size: 0,
          content_type: '',
          source: { type: 'url', host: `127.0.0.1:${web.port}` },
        },
      ],
    });
    expect(JSON.stringify(created)).not.toContain('X-Amz-Signature');
    const done = await client.waitFor(created.id);
    expect(done.status).toBe('succeeded');
    expect((done.input as { files: Array<{ size: number; content_type: string }> }).files[0]).toMatchObject({
      size: pdf.length,
      content_type: 'application/pdf',
    });
    expect((done.result as { name: string }).name).toMatch(/^file-1-[a-z]+\.pdf$/);
  });

  test('file_url as JSON sends its headers; file and file_url parts keep their order', async () => {
    const created = await submit(
      client,
      [
        ['file', new Blob([pdf]), 'first.pdf'],
        [
          'file_url',
          JSON.stringify({ url: web.url('/needs-auth.pdf'), headers: { Authorization: 'Bearer s3cret' } }),
        ],
      ],
      'merge',
    );
    const done = await client.waitFor(created.id);
    expect(done.status).toBe('succeeded');
    const files = (done.input as { files: Array<{ name: string; source?: unknown }> }).files;
    expect(files.map((f) => f.name)).toEqual(['first.pdf', 'file-2']);
    expect(files[0]!.source).toBeUndefined();
    // The header is a secret: in no view, and in no log line.
    expect(JSON.stringify(done)).not.toContain('s3cret');
    expect(server.logs.join('\n')).not.toContain('s3cret');
  });

  test('redirects are followed (at most 5); failures are job errors with stable codes', async () => {
    expect((await client.waitFor((await submit(client, [['file_url', web.url('/hop')]])).id)).status).toBe(
      'succeeded',
    );
    const cases: Array<[string, string, RegExp]> = [
      [web.url('/loop'), 'import_failed', /more than 5 redirects/],
      [web.url('/gone.pdf'), 'import_failed', /answered 404/],
      [web.url('/text.txt'), 'unsupported_file', /accepted type/],
      [`http://127.0.0.1:1/closed.pdf`, 'import_failed', /connection failed/],
    ];
    for (const [url, code, message] of cases) {
      const done = await client.waitFor((await submit(client, [['file_url', url]])).id);
      expect(done.status, url).toBe('failed');
      expect(done.error?.code, url).toBe(code);
      expect(done.error?.message, url).toMatch(message);
      expect(done.error?.message).not.toContain('127.0.0.1');
    }
  });

  test('a URL serving 2 GiB is stopped at the plan limit without memory growth', async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    const done = await client.waitFor((await submit(client, [['file_url', web.url('/huge.pdf')]])).id);
    const growth = process.memoryUsage().rss - before;
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('import_too_large');
    // Reading stopped at the limit: the origin got to send the limit plus what sockets buffer.
    expect(web.sent.huge).toBeLessThan(LIMIT_BYTES + 64 * 1024 * 1024);
    console.log(`2 GiB import: origin sent ${web.sent.huge} bytes, RSS growth ${growth} bytes`);
    // Server, worker and origin share this process: all of them together grew by far less than 2 GiB.
    expect(growth).toBeLessThan(96 * 1024 * 1024);
  }, 60_000);

  test('an origin that trickles bytes hits the import time limit', async () => {
    const started = Date.now();
    const done = await client.waitFor((await submit(client, [['file_url', web.url('/trickle.pdf')]])).id);
    expect(done.error?.code).toBe('import_timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect.poll(() => trickleStopped).toBe(true);
  });

  test('an export target answering 403 fails the job with export_failed naming the status', async () => {
    const target = await origin({
      '/put': (req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(403).end('<Error><Code>AccessDenied</Code></Error>'));
      },
    });
    try {
      const created = await submit(client, [
        ['file', new Blob([pdf]), 'a.pdf'],
        ['export', target.url('/put?sig=secret-sig')],
      ]);
      expect(created.export).toEqual({ host: `127.0.0.1:${target.port}`, keep_result: true });
      const done = await client.waitFor(created.id);
      expect(done.status).toBe('failed');
      expect(done.error?.code).toBe('export_failed');
      expect(done.error?.message).toContain('403');
      expect(server.logs.join('\n')).not.toContain('secret-sig');
    } finally {
      await target.close();
    }
  });

  test('webhook_url gets the job’s end signed with the account’s job webhook secret, retried on failure', async () => {
    const hooks: Receiver = await startReceiver();
    try {
      const secret = (await (await client.fetch('/api/v1/job-webhook-secret')).json()) as { secret: string };
      expect(secret.secret).toMatch(/^whsec_/);
      hooks.secrets = [secret.secret];
      hooks.answer = (n) => ({ status: n === 1 ? 500 : 200 });
      const created = await submit(client, [
        ['file', new Blob([pdf]), 'a.pdf'],
        ['webhook_url', `${hooks.url}/job-done?token=t0k`],
      ]);
      expect(created.webhook).toEqual({ host: new URL(hooks.url).host });
      expect((await client.waitFor(created.id)).status).toBe('succeeded');
      const [first, second] = await hooks.waitFor(2);
      expect(first!.verified && second!.verified).toBe(true);
      expect(second!.id).toBe(first!.id);
      const body = JSON.parse(second!.body.toString('utf8')) as { type: string; data: { id: string } };
      expect(body).toMatchObject({ type: 'job.succeeded', data: { id: created.id } });
      // Only the end is sent: no job.created or job.processing arrived.
      await new Promise((r) => setTimeout(r, 500));
      expect(hooks.received).toHaveLength(2);
      // The account's endpoints list does not show the hidden job-callback endpoint.
      const list = (await (await client.fetch('/api/v1/webhooks')).json()) as { data: unknown[] };
      expect(list.data).toEqual([]);
    } finally {
      await hooks.close();
    }
  });
});

describe('file_url imports refused when private addresses are not allowed (the default)', () => {
  let server: TestServer;
  let client: Client;
  let web: Awaited<ReturnType<typeof origin>>;

  beforeAll(async () => {
    server = await startTestServer();
    client = new Client(server.url, (await server.newAccount()).key);
    web = await origin({ '/doc.pdf': (_req, res) => res.writeHead(200).end(pdf) });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    await server?.close();
  });

  test.each([
    ['loopback', () => web.url('/doc.pdf')],
    ['loopback by name', () => `http://localhost:${web.port}/doc.pdf`],
    ['private', () => 'http://10.0.0.1/doc.pdf'],
    ['link-local metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${web.port}/doc.pdf`],
    ['decimal IP', () => `http://2130706433:${web.port}/doc.pdf`],
    ['IPv6 loopback', () => `http://[::1]:${web.port}/doc.pdf`],
  ])('%s is refused with import_forbidden_address', async (_name, url) => {
    const done = await client.waitFor((await submit(client, [['file_url', url()]])).id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('import_forbidden_address');
  });

  test('schemes other than http(s) are refused at the request', async () => {
    const form = new FormData();
    form.set('tool', 'rotate');
    form.append('file_url', 'file:///etc/passwd');
    const response = await client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_request' });
  });
});

describe('export to a presigned PUT URL on S3 (SeaweedFS)', () => {
  let s3: S3TestServer;
  let server: TestServer;
  let client: Client;
  let presigner: S3Client;

  beforeAll(async () => {
    s3 = await startS3Server('quire-export');
    // The SDK's default flexible checksum would sign a CRC of the empty body into the URL; a
    // presigned PUT for someone else's bytes is made without one (docs/api.md §2, export).
    presigner = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    server = await startTestServer({ QUIRE_TRANSFERS_ALLOW_PRIVATE: 'true' });
    client = new Client(server.url, (await server.newAccount()).key);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await s3?.stop();
  });

  test('the result lands byte-identical to the download, and stays downloadable', async () => {
    const url = await getSignedUrl(
      presigner,
      new PutObjectCommand({ Bucket: s3.bucket, Key: 'out/rotated.pdf' }),
      {
        expiresIn: 600,
      },
    );
    const created = await submit(client, [
      ['file', new Blob([pdf]), 'a.pdf'],
      ['export', JSON.stringify({ url })],
    ]);
    const done = await client.waitFor(created.id);
    expect(done.error).toBeUndefined();
    expect(done.status).toBe('succeeded');
    const stored = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'out/rotated.pdf' }));
    const exported = Buffer.from(await stored.Body!.transformToByteArray());
    const downloaded = await download(client, done.id);
    expect(exported.length).toBe(done.result!.size);
    expect(exported.equals(downloaded)).toBe(true);
    expect(server.logs.join('\n')).not.toContain('X-Amz-Signature');
  }, 60_000);

  test('keep_result: false exports and then drops the result', async () => {
    const url = await getSignedUrl(
      presigner,
      new PutObjectCommand({ Bucket: s3.bucket, Key: 'out/only.pdf' }),
      {
        expiresIn: 600,
      },
    );
    const done = await client.waitFor(
      (
        await submit(client, [
          ['file', new Blob([pdf]), 'a.pdf'],
          ['export', JSON.stringify({ url, keep_result: false })],
        ])
      ).id,
    );
    expect(done.status).toBe('succeeded');
    const stored = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'out/only.pdf' }));
    expect((await stored.Body!.transformToByteArray()).length).toBe(done.result!.size);
    expect((await client.fetch(`/api/v1/jobs/${done.id}/download`)).status).toBe(410);
  }, 60_000);
});

/**
 * A public address served from this host exists only in a network namespace made for the run:
 * `unshare -n sh -c 'ip link set lo up && ip addr add 93.184.216.34/32 dev lo &&
 * TEST_PUBLIC_ADDRESS=93.184.216.34 npx vitest run test/e2e/workflows-import-export.test.ts'`.
 * Without one, a redirect's own check cannot be reached: the first hop is refused already.
 * scripts/test.sh runs this group so after the main run (as root, where unshare is permitted).
 */
const publicAddress = process.env.TEST_PUBLIC_ADDRESS;

describe.skipIf(!publicAddress)('redirects from a public address to a private one', () => {
  let server: TestServer;
  let client: Client;
  let web: Awaited<ReturnType<typeof origin>>;

  beforeAll(async () => {
    server = await startTestServer();
    client = new Client(server.url, (await server.newAccount()).key);
    web = await origin(
      {
        '/doc.pdf': (_req, res) => res.writeHead(200).end(pdf),
        '/to-loopback': (_req, res) => res.writeHead(302, { location: web.url('/doc.pdf') }).end(),
        '/to-metadata': (_req, res) =>
          res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
        '/to-localhost': (_req, res) =>
          res.writeHead(301, { location: `http://localhost:${web.port}/doc.pdf` }).end(),
      },
      '0.0.0.0',
    );
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    await server?.close();
  });

  test('the public origin itself is fetched', async () => {
    const done = await client.waitFor(
      (await submit(client, [['file_url', `http://${publicAddress}:${web.port}/doc.pdf`]])).id,
    );
    expect(done.status).toBe('succeeded');
  });

  test.each(['/to-loopback', '/to-metadata', '/to-localhost'])(
    '%s is refused at the redirect',
    async (route) => {
      const done = await client.waitFor(
        (await submit(client, [['file_url', `http://${publicAddress}:${web.port}${route}`]])).id,
      );
      expect(done.status).toBe('failed');
      expect(done.error?.code).toBe('import_forbidden_address');
    },
  );
});
