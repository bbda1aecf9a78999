// docs/api.md §9 and retention over real HTTP: health, readiness, metrics, the generated OpenAPI
// document and its rendering, and the sweeper deleting inputs at the end and results after retention.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const small = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');

const quire = useTestServer({ QUIRE_RESULT_RETENTION_MS: '1500', QUIRE_SWEEP_INTERVAL_MS: '200' });

async function filesOf(jobId: string): Promise<string[]> {
  const dir = path.join(quire.server.dataDir, 'files', 'jobs', jobId);
  return (await readdir(dir).catch(() => [])).map(String);
}

describe('operations endpoints', () => {
  it('answers /healthz and /readyz with the state of database, storage and engines', async () => {
    expect(await (await fetch(`${quire.server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${quire.server.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; checks: Record<string, unknown> };
    expect(body.status).toBe('ready');
    expect(body.checks).toMatchObject({
      database: { status: 'ok' },
      storage: { status: 'ok' },
      engines: { qpdf: { status: 'ok' }, ghostscript: { status: 'ok' }, poppler: { status: 'ok' } },
    });
  });

  it('reports each engine with its version in /readyz and on the tools that use it', async () => {
    const ready = (await (await fetch(`${quire.server.url}/readyz`)).json()) as {
      checks: { engines: Record<string, { status: string; version?: string }> };
    };
    for (const engine of [
      'qpdf',
      'ghostscript',
      'poppler',
      'ocrmypdf',
      'tesseract',
      'libreoffice',
      'chromium',
      'pyhanko',
    ]) {
      expect(ready.checks.engines[engine], engine).toMatchObject({
        status: 'ok',
        version: expect.any(String),
      });
    }
    const tools = (await (await quire.client.fetch('/api/v1/tools')).json()) as {
      data: Array<{
        name: string;
        available: boolean;
        engines: Array<{ name: string; version?: string; languages?: string[] }>;
      }>;
    };
    const ocr = tools.data.find((t) => t.name === 'ocr')!;
    expect(ocr.available).toBe(true);
    const tesseract = ocr.engines.find((e) => e.name === 'tesseract')!;
    expect(tesseract.version).toMatch(/\d/);
    expect(tesseract.languages).toEqual(expect.arrayContaining(['eng', 'deu', 'fra', 'spa']));
    const html = tools.data.find((t) => t.name === 'html-to-pdf')!;
    expect(html.engines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'chromium', available: true, version: expect.any(String) }),
      ]),
    );
  });

  it('exposes Prometheus metrics by route template, tool and outcome, and queue depth', async () => {
    await quire.client.run({ tool: 'rotate', options: { angle: 90 }, files: [small] });
    const text = await (await fetch(`${quire.server.url}/metrics`)).text();
    expect(text).toMatch(
      /quire_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/jobs\/:id",status_code="200"\} \d+/,
    );
    expect(text).toMatch(/quire_jobs_finished_total\{tool="rotate",outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/quire_jobs\{status="queued"\} \d+/);
    expect(text).toMatch(/quire_job_run_seconds_bucket/);
    expect(text).toMatch(/quire_engine_run_seconds_count\{engine="qpdf"\} [1-9]/);
  });

  it('publishes an OpenAPI 3.1 document generated from routes and tool schemas, rendered at /docs', async () => {
    const doc = (await (await fetch(`${quire.server.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: {
        schemas: Record<string, { properties?: Record<string, unknown> }>;
        securitySchemes: Record<string, unknown>;
      };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/jobs',
        '/api/v1/jobs/{id}',
        '/api/v1/jobs/{id}/download',
        '/api/v1/files/{token}',
        '/api/v1/tools',
      ]),
    );
    expect(doc.paths['/api/v1/jobs']).toHaveProperty('post.requestBody.content.multipart/form-data');
    // Per-tool options are named after the tool (issue 13: `Options_<tool>` read badly in generators).
    expect(doc.components.schemas.RotateOptions?.properties).toHaveProperty('angle');
    expect(doc.components.schemas.CompressOptions?.properties).toHaveProperty('level');
    expect(doc.components.securitySchemes).toHaveProperty('bearerAuth');
    const html = await fetch(`${quire.server.url}/docs/`);
    expect(html.status).toBe(200);
    // Rendered by Scalar (which replaced Swagger UI), from this server's own copy of its script.
    expect(await html.text()).toMatch(/Scalar\.createApiReference/);
  });
});

describe('request logging', () => {
  it('logs probes at debug and other requests at info, by route template', async () => {
    const before = quire.server.logs.length;
    for (const probe of ['/healthz', '/readyz', '/metrics'])
      await (await fetch(`${quire.server.url}${probe}`)).text();
    await quire.client.fetch('/api/v1/tools');
    const lines = quire.server.logs
      .slice(before)
      .map((line) => JSON.parse(line) as { msg: string; route?: string; level: string })
      .filter((line) => line.msg === 'request');
    const levelOf = (route: string) => lines.find((line) => line.route === route)?.level;
    expect(levelOf('/healthz')).toBe('debug');
    expect(levelOf('/readyz')).toBe('debug');
    expect(levelOf('/metrics')).toBe('debug');
    expect(levelOf('/api/v1/tools')).toBe('info');
  });
});

describe('retention', () => {
  it('deletes inputs when the job ends and the result after the retention period', async () => {
    const job = await quire.client.run({ tool: 'rotate', options: { angle: 90 }, files: [small] });
    expect(job.status).toBe('succeeded');
    // Inputs go right after the terminal write (never before it: a lost lease means a re-run).
    const inputsGone = Date.now() + 2_000;
    while ((await filesOf(job.id)).length > 1 && Date.now() < inputsGone)
      await new Promise((r) => setTimeout(r, 20));
    // One result object per attempt, named by its lease token; this job ran once.
    expect(await filesOf(job.id)).toEqual([expect.stringMatching(/^result-[0-9a-f-]{36}$/)]);
    const expiresIn = Date.parse(String(job.expires_at)) - Date.parse(String(job.completed_at));
    expect(expiresIn).toBeGreaterThanOrEqual(1000);
    expect(expiresIn).toBeLessThanOrEqual(2000);

    const deadline = Date.now() + 10_000;
    while ((await filesOf(job.id)).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(await filesOf(job.id)).toEqual([]);
    const download = await quire.client.fetch(`/api/v1/jobs/${job.id}/download`);
    expect(download.status).toBe(410);
    expect(((await download.json()) as { code: string }).code).toBe('result_expired');
  });
});
