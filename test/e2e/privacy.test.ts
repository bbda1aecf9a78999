// docs/api.md §10: run every tool with canary passwords, file names, metadata and document text, through
// successes and failures, then scan every log line and every error body for the canaries.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startWork } from '../../src/cli/serve.js';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { toFile } from '../support/pdf.js';
import { openTestRuntime, type TestRuntime } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

const CANARY = {
  password: 'CanaryPw7f3a',
  wrongPassword: 'CanaryWrong9b1c',
  fileName: 'CanaryName4d2e',
  metadata: 'CanaryMeta8e5f',
  text: 'CanaryText6a0d',
};

/** A one-page PDF whose only text is the canary (xref rebuilt by qpdf so every tool can open it). */
function pdfWithText(text: string): Buffer {
  const content = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
  const raw = [
    '%PDF-1.4',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj',
    `4 0 obj << /Length ${content.length} >> stream\n${content}\nendstream endobj`,
    '5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj',
    'trailer << /Root 1 0 R /Size 6 >>',
    '%%EOF',
  ].join('\n');
  const fixed = toFile(Buffer.from(raw));
  const out = `${fixed}.fixed.pdf`;
  try {
    execFileSync('qpdf', [fixed, out], { stdio: 'ignore' });
  } catch {
    // exit 3: warnings about the rebuilt xref; the output is fine.
  }
  return readFileSync(out);
}

const bodies: string[] = [];

const quire = useTestServer();

describe('privacy canaries', () => {
  it('runs every tool with canary values and finds none in logs or error bodies', async () => {
    const document = pdfWithText(CANARY.text);
    const file = { name: `${CANARY.fileName}.pdf`, data: document };
    const metadata = { note: CANARY.metadata };
    const encrypted = await quire.client.run({
      tool: 'protect',
      files: [file],
      metadata,
      options: { user_password: CANARY.password },
    });
    expect(encrypted.status, JSON.stringify(encrypted.error)).toBe('succeeded');
    const locked = {
      name: `${CANARY.fileName}-locked.pdf`,
      data: (await quire.client.download(encrypted.id)).body,
    };

    const runs: Array<{ tool: string; files: Array<typeof file>; options?: Record<string, unknown> }> = [
      { tool: 'merge', files: [file, file] },
      // The rest of the catalogue, with canary values wherever a tool takes text.
      { tool: 'pages', files: [file], options: { keep: '1,1' } },
      { tool: 'linearize', files: [file] },
      { tool: 'repair', files: [file] },
      { tool: 'flatten', files: [file] },
      { tool: 'metadata', files: [file], options: { title: CANARY.text, author: CANARY.text } },
      { tool: 'watermark', files: [file], options: { text: CANARY.text } },
      { tool: 'page-numbers', files: [file], options: { format: `${CANARY.text} {n}` } },
      { tool: 'pdf-to-images', files: [file], options: { dpi: 36 } },
      { tool: 'extract-text', files: [file], options: { format: 'json' } },
      { tool: 'extract-images', files: [file] },
      { tool: 'pdfa', files: [file] },
      { tool: 'ocr', files: [file], options: { mode: 'force' } },
      {
        tool: 'office-to-pdf',
        files: [{ name: `${CANARY.fileName}.txt`, data: Buffer.from(`${CANARY.text}\n`) }],
      },
      {
        tool: 'html-to-pdf',
        files: [
          {
            name: `${CANARY.fileName}.html`,
            data: Buffer.from(`<html><body><p>${CANARY.text}</p></body></html>`),
          },
        ],
      },
      { tool: 'split', files: [file] },
      { tool: 'rotate', files: [file], options: { angle: 90 } },
      { tool: 'compress', files: [file], options: { level: 'high' } },
      { tool: 'info', files: [file] },
      // Two versions that differ in the canary word: the report holds it, logs and facts must not.
      {
        tool: 'compare',
        files: [file, { name: `${CANARY.fileName}-new.pdf`, data: pdfWithText(`${CANARY.text}New`) }],
        options: { output: 'both' },
      },
      {
        tool: 'protect',
        files: [file],
        options: { user_password: CANARY.password, owner_password: CANARY.password },
      },
      { tool: 'unlock', files: [locked], options: { password: CANARY.password } },
      // Failures: wrong password, encrypted input, bad range, corrupt input, invalid options.
      { tool: 'unlock', files: [locked], options: { password: CANARY.wrongPassword } },
      { tool: 'rotate', files: [locked], options: { angle: 90 } },
      { tool: 'rotate', files: [file], options: { angle: 90, pages: '9' } },
      {
        tool: 'compress',
        files: [
          { name: `${CANARY.fileName}-bad.pdf`, data: Buffer.from(`%PDF-1.4\n${CANARY.text}\n%%EOF\n`) },
        ],
      },
    ];
    const failedTools: string[] = [];
    for (const run of runs) {
      const job: JobBody = await quire.client.run({ ...run, metadata });
      if (job.error) bodies.push(JSON.stringify(job.error));
      if (job.status === 'failed') failedTools.push(`${run.tool}:${job.error?.code}`);
      expect(['succeeded', 'failed']).toContain(job.status);
      expect(JSON.stringify(job.options)).not.toContain(CANARY.password);
    }
    // Only the four deliberate failures: every tool really ran on the canary document.
    expect(failedTools).toEqual([
      'unlock:invalid_password',
      'rotate:pdf_encrypted',
      'rotate:page_range_invalid',
      'compress:pdf_corrupt',
    ]);
    const refused = await quire.client.createJob({
      tool: 'unlock',
      files: [file],
      metadata,
      options: { password: CANARY.password, extra: CANARY.text },
    });
    expect(refused.status).toBe(400);
    bodies.push(await refused.text());
    const notPdf = await quire.client.createJob({
      tool: 'rotate',
      files: [{ name: `${CANARY.fileName}.pdf`, data: CANARY.text }],
      options: { angle: 90 },
    });
    expect(notPdf.status).toBe(400);
    bodies.push(await notPdf.text());

    // Files in the results legitimately hold the canaries; logs and error bodies must not.
    expect(quire.server.logs.length).toBeGreaterThan(20);
    for (const canary of Object.values(CANARY)) {
      expect(
        quire.server.logs.filter((line) => line.includes(canary)),
        canary,
      ).toEqual([]);
      expect(
        bodies.filter((body) => body.includes(canary)),
        canary,
      ).toEqual([]);
    }
    expect(quire.server.logs.filter((line) => line.includes(quire.client.key!))).toEqual([]);
  }, 240_000);
});

// Issue 26, finding 5: what stays of secrets once their job has ended, at the most verbose log level.
describe('secrets after their job ends (trace level, SQLite files)', () => {
  const SECRET = {
    // Base64 the schema accepts; the job is canceled before anything decodes it.
    certificate: `CanaryP12x${'A'.repeat(38)}`,
    certificatePassword: 'CanaryP12Pw5e6f',
    formValue: 'CanaryFormValue3c8d',
    webhookToken: 'CanaryHookToken2b7a',
  };
  let runtime: TestRuntime;
  let http: Awaited<ReturnType<typeof listen>>;
  let stopWork: (() => Promise<void>) | undefined;
  let hooks: Receiver;

  beforeAll(async () => {
    runtime = await openTestRuntime({ QUIRE_LOG_LEVEL: 'trace', QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    http = await listen(runtime.runtime, 1_000);
    hooks = await startReceiver();
  });
  afterAll(async () => {
    await hooks?.close();
    await http?.stop();
    await stopWork?.();
    await runtime?.close();
  });

  /** The database and its WAL as they are on disk while the service runs, as one text. */
  function databaseFiles(): string {
    const file = path.join(runtime.dataDir, 'quire.db');
    return [file, `${file}-wal`]
      .filter((each) => existsSync(each))
      .map((each) => readFileSync(each).toString('latin1'))
      .join('\n');
  }

  it('keeps no API key, PKCS#12, form value or webhook token in the log, quire.db or its WAL', async () => {
    const { key } = await runtime.newAccount();
    const client = new Client(`http://127.0.0.1:${http.port}`, key);
    const document = readFileSync(corpusFile('pdfbox__AcroFormsBasicFields.pdf'));
    const file = { name: 'form.pdf', data: document };
    // No worker yet: the sign job stays queued until it is canceled.
    const signing = await client.submit({
      tool: 'sign',
      files: [file],
      options: { certificate: SECRET.certificate, certificate_password: SECRET.certificatePassword },
    });
    const canceled = await client.fetch(`/api/v1/jobs/${signing.id}/cancel`, { method: 'POST' });
    expect(((await canceled.json()) as JobBody).status).toBe('canceled');
    // Before any other job ends (whose own scrub would checkpoint the WAL too).
    expect(databaseFiles()).not.toContain(SECRET.certificatePassword);
    expect(databaseFiles()).not.toContain(SECRET.certificate);

    stopWork = startWork(runtime.runtime);
    hooks.secrets = [
      ((await (await client.fetch('/api/v1/job-webhook-secret')).json()) as { secret: string }).secret,
    ];
    const form = await client.form({
      tool: 'fill-form',
      files: [file],
      options: { values: { TextField: SECRET.formValue } },
    });
    form.append('webhook_url', `${hooks.url}/done?token=${SECRET.webhookToken}`);
    const created = await client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(created.status).toBe(201);
    const filled = await client.waitFor(((await created.json()) as JobBody).id);
    expect(filled.status).toBe('succeeded');
    expect(JSON.stringify(filled.options)).toBe('{"values":"[redacted]","flatten":false}');
    const [delivery] = await hooks.waitFor(1);
    const event = delivery!.body.toString('utf8');
    expect(event).toContain('"values":"[redacted]"');
    expect(event).not.toContain(SECRET.formValue);
    expect(delivery!.verified).toBe(true);

    // The delivery's own copy of the URL is erased when its attempt is recorded, just after the answer.
    const deadline = Date.now() + 10_000;
    while (databaseFiles().includes(SECRET.webhookToken) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const stored = databaseFiles();
    for (const secret of [...Object.values(SECRET), key]) {
      expect(stored.includes(secret), secret).toBe(false);
      expect(
        runtime.logs.filter((line) => line.includes(secret)),
        secret,
      ).toEqual([]);
    }
    // The header was really there to leak: the multipart parser's trace line is logged, without it.
    expect(runtime.logs.some((line) => line.includes('Providing options to busboy'))).toBe(true);
    expect(runtime.logs.some((line) => line.includes('"level":"trace"'))).toBe(true);
  }, 120_000);

  it('creates quire.db, its WAL and shared-memory file owner-only (0600)', () => {
    const file = path.join(runtime.dataDir, 'quire.db');
    for (const each of [file, `${file}-wal`, `${file}-shm`]) {
      expect((statSync(each).mode & 0o777).toString(8), each).toBe('600');
    }
  });
});
