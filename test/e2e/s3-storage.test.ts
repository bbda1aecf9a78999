// End to end with S3 storage: a real Quire server whose QUIRE_STORAGE_URL is a bucket on a real
// S3-compatible server (SeaweedFS on loopback). Uploads stream into the bucket, workers fetch and
// store through it, and the download's 302 goes to a presigned URL that S3 itself serves.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { pageCount, qpdfCheckPasses, toFile } from '../support/pdf.js';
import { type S3TestServer, startS3Server } from '../support/s3-server.js';
import { startTestServer, type TestServer } from '../support/server.js';

const prefix = `e2e-${randomUUID()}`;
let s3: S3TestServer;
let server: TestServer;
let client: Client;
let jobId: string;

beforeAll(async () => {
  s3 = await startS3Server();
  // Credentials reach the store the production way: the AWS SDK's chain reads the environment.
  Object.assign(process.env, s3.env);
  server = await startTestServer({ QUIRE_STORAGE_URL: s3.storageUrl(prefix) });
  client = new Client(server.url, (await server.newAccount()).key);
  const job = await client.run({
    tool: 'rotate',
    options: { angle: 90 },
    files: [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')],
  });
  expect(job.status).toBe('succeeded');
  jobId = job.id;
}, 90_000);
afterAll(async () => {
  await server?.close();
  await s3?.stop();
});

async function objectKeys(): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${prefix}/` }));
  return (listed.Contents ?? []).map((o) => o.Key!.slice(prefix.length + 1)).sort();
}

describe('S3 storage end to end', () => {
  it('keeps only the result in the bucket once the job is done, and nothing on local disk', async () => {
    // Inputs are deleted just after the terminal write, so the bucket catches up within moments.
    await expect
      .poll(objectKeys, { timeout: 5_000 })
      .toEqual([expect.stringMatching(new RegExp(`^jobs/${jobId}/result-[0-9a-f-]{36}$`))]);
    expect(existsSync(path.join(server.dataDir, 'files'))).toBe(false);
  });

  it('redirects the download to a presigned URL that serves the PDF with the contract headers', async () => {
    const redirect = await client.fetch(`/api/v1/jobs/${jobId}/download`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    const location = redirect.headers.get('location')!;
    expect(location).toMatch(
      new RegExp(`^${s3.endpoint}/${s3.bucket}/${prefix}/jobs/${jobId}/result-[0-9a-f-]{36}\\?`),
    );
    expect(new URL(location).searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');

    const response = await fetch(location);
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Number(response.headers.get('content-length'))).toBe(body.length);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="pypdf-samples__pdflatex-4-pages-rotated.pdf"; filename*=UTF-8''pypdf-samples__pdflatex-4-pages-rotated.pdf`,
    );
    const file = toFile(body);
    expect(qpdfCheckPasses(file)).toBe(true);
    expect(pageCount(file)).toBe(4);

    const ranged = await fetch(location, { headers: { range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 10-19/${body.length}`);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(body.subarray(10, 20));
  });

  it('names a non-ASCII result with an ASCII fallback and an RFC 8187 filename*', async () => {
    const job = await client.run({
      tool: 'rotate',
      options: { angle: 90 },
      files: [
        { name: 'Prüfbericht 2026.pdf', data: readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')) },
      ],
    });
    const { response } = await client.download(job.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Pr_fbericht 2026-rotated.pdf"; filename*=UTF-8''Pr%C3%BCfbericht%202026-rotated.pdf`,
    );
  });

  it('offers the presigned link as JSON with an expiry S3 enforces to the second', async () => {
    const response = await client.fetch(`/api/v1/jobs/${jobId}/download`, {
      headers: { accept: 'application/json' },
    });
    const { url, expires_at } = (await response.json()) as { url: string; expires_at: string };
    const signed = new URL(url);
    const date = signed.searchParams.get('X-Amz-Date')!;
    const signedAt = Date.parse(
      `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13)}`,
    );
    const linkExpiry = signedAt + Number(signed.searchParams.get('X-Amz-Expires')) * 1000;
    // Rounded down to whole seconds: never later than the expiry the API reports.
    expect(Date.parse(expires_at) - linkExpiry).toBeGreaterThanOrEqual(0);
    expect(Date.parse(expires_at) - linkExpiry).toBeLessThan(1000);
  });

  it('deleting the job deletes its result from the bucket', async () => {
    const job = await client.run({
      tool: 'rotate',
      options: { angle: 180 },
      files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
    });
    const ofJob = async () => (await objectKeys()).filter((key) => key.startsWith(`jobs/${job.id}/`));
    // Inputs go just after the terminal write; wait for that so only the result is left.
    await expect.poll(ofJob, { timeout: 5_000 }).toEqual([expect.stringMatching(/\/result-[0-9a-f-]{36}$/)]);
    expect((await client.fetch(`/api/v1/jobs/${job.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await ofJob()).toEqual([]);
  });

  it('reports storage ready through HeadBucket and never logs signatures or credentials', async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    const redirect = await client.fetch(`/api/v1/jobs/${jobId}/download`);
    const signature = new URL(redirect.headers.get('location')!).searchParams.get('X-Amz-Signature')!;
    expect(server.logs.length).toBeGreaterThan(0);
    expect(server.logs.filter((l) => l.includes(signature) || l.includes(s3.secretAccessKey))).toEqual([]);
  });
});
