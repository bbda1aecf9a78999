// docs/tools.md "Encrypted and signed inputs", docs/api.md §2 (steps): over real HTTP and engines,
// every tool that takes a PDF either keeps an encrypted input's encryption (same R and P, checked with
// `qpdf --show-encryption`) or says `encryption: "removed"`; chains carry protect's protection; a
// protected DOCX converts with its password and is refused with a stable code without it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { pageText, requiresPassword, toFile, unzip } from '../support/pdf.js';
import { inputsFor, type PublishedTool, sampleOptions } from '../support/tool-samples.js';
import { useTestServer } from '../support/use-test-server.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-keep-enc-'));
const USER = 'KeepUser7f3a';
const OWNER = 'KeepOwner9c1d';
const DOCX_PASSWORD = 'DocxPw-4e21';

/** `input` encrypted by qpdf: owner password only (AES-256, R6, no printing, no changes) or user and owner (AES-128, R4, no copying). */
function encrypt(input: string, kind: 'owner' | 'user'): string {
  const out = path.join(scratch, `${kind}-${path.basename(input)}`);
  const args =
    kind === 'owner'
      ? ['--encrypt', '', OWNER, '256', '--print=none', '--modify=none', '--']
      : ['--encrypt', USER, OWNER, '128', '--use-aes=y', '--extract=n', '--'];
  execFileSync('qpdf', [...args, input, out]);
  return out;
}

/** R and P as `qpdf --show-encryption` prints them (opened with `password`), or undefined when not encrypted. */
function encryptionOf(file: string, password?: string): { R: number; P: number } | undefined {
  const result = spawnSync('qpdf', [
    ...(password ? [`--password=${password}`] : []),
    '--show-encryption',
    file,
  ]);
  const text = result.stdout.toString();
  const R = /^R = (\d+)$/m.exec(text)?.[1];
  const P = /^P = (-?\d+)$/m.exec(text)?.[1];
  return R === undefined || P === undefined ? undefined : { R: Number(R), P: Number(P) };
}

let published: PublishedTool[];

const quire = useTestServer();
beforeAll(async () => {
  const body = (await (await quire.client.fetch('/api/v1/tools')).json()) as { data: PublishedTool[] };
  published = body.data;
});

/** What a tool whose purpose is the encryption itself makes of it: protect sets its own, unlock removes it. */
const CHANGES_ENCRYPTION = new Set(['protect', 'unlock']);

describe('every tool that takes a PDF keeps its encryption or says it removed it', () => {
  it('on an owner-password file and on a user-password file', async () => {
    const pdfTools = published.filter((t) => t.available && t.inputs.accepts.includes('application/pdf'));
    expect(pdfTools.length).toBeGreaterThan(20);
    const submitted: Array<{ label: string; id: string; kind: 'owner' | 'user'; source: string }> = [];
    for (const tool of pdfTools) {
      const example = ((tool.options_schema.examples as Record<string, unknown>[]) ?? [{}])[0] ?? {};
      for (const kind of ['owner', 'user'] as const) {
        const files = inputsFor(tool).map((f) => encrypt(f as string, kind));
        const options = { ...(await sampleOptions(tool, example)) };
        // unlock's own option is its password; every other tool takes the input's as `password`.
        if (kind === 'user') options.password = USER;
        else if (tool.name === 'unlock') options.password = '';
        const job = await quire.client.submit({ tool: tool.name, options, files });
        submitted.push({
          label: `${tool.name} on the ${kind}-password file`,
          id: job.id,
          kind,
          source: files[0]!,
        });
      }
    }
    const wrong: string[] = [];
    const outcomes: string[] = [];
    for (const { label, id, kind, source } of submitted) {
      const job = await quire.client.waitFor(id, 240);
      // validate reads the file as uploaded; veraPDF decrypts most AES-256 (R6) owner-password files
      // but not all (by their random salts), and refuses those rather than judge something else
      // (docs/tools.md, validate).
      const refused = job.tool === 'validate' && kind === 'owner' && job.status === 'failed';
      if (refused) {
        expect((job.error as { code?: string } | undefined)?.code, label).toBe('pdf_encrypted');
        outcomes.push(`${label}: refused pdf_encrypted`);
        continue;
      }
      expect(job.status, `${label}: ${JSON.stringify(job.error)}`).toBe('succeeded');
      const tool = job.tool as string;
      if (CHANGES_ENCRYPTION.has(tool)) continue;
      const facts = job.result!;
      const password = kind === 'user' ? USER : undefined;
      const expected = encryptionOf(source, password)!;
      const pdfs = await resultPdfs(job);
      outcomes.push(
        `${label}: ${String(facts.encryption)}${facts.signatures ? ` signatures ${String(facts.signatures)}` : ''}`,
      );
      if (facts.encryption === 'removed') continue;
      if (facts.encryption !== 'kept' || pdfs.length === 0) {
        wrong.push(`${label}: encryption ${JSON.stringify(facts.encryption)}`);
        continue;
      }
      for (const pdf of pdfs) {
        const found = encryptionOf(pdf, password);
        if (JSON.stringify(found) !== JSON.stringify(expected))
          wrong.push(`${label}: ${JSON.stringify(found)} instead of ${JSON.stringify(expected)}`);
        if (kind === 'user' && !requiresPassword(pdf))
          wrong.push(`${label}: opens without the user password`);
      }
    }
    if (process.env.QUIRE_TEST_SHOW) console.log(outcomes.join('\n'));
    expect(wrong).toEqual([]);
    // A lossy compress is Ghostscript's rewrite, which writes no encryption of its own.
    const compress = submitted.filter((s) => s.label.startsWith('compress '));
    for (const { id } of compress)
      expect((await quire.client.waitFor(id, 1)).result?.encryption).toBe('kept');
  }, 480_000);
});

/** The PDFs of a job's result: the file itself, or the PDF entries of its ZIP. */
async function resultPdfs(job: JobBody): Promise<string[]> {
  const { body } = await quire.client.download(job.id);
  if (job.result!.content_type === 'application/pdf') return [toFile(body)];
  if (job.result!.content_type !== 'application/zip') return [];
  const entries = await unzip(body);
  return [...entries].filter(([name]) => name.endsWith('.pdf')).map(([, bytes]) => toFile(bytes));
}

type Step = { tool: string; options?: Record<string, unknown> };

async function runSteps(steps: Step[], file: string): Promise<JobBody> {
  const form = new FormData();
  form.set('steps', JSON.stringify(steps));
  form.append('file', new Blob([readFileSync(file)]), path.basename(file));
  const response = await quire.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
  expect(response.status, await response.clone().text()).toBe(201);
  return quire.client.waitFor(((await response.json()) as JobBody).id, 240);
}

const FOUR_PAGES = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
const STEP_PASSWORD = 'StepProtect5b8e';

describe('chains carry protection', () => {
  it('rotate → compress → protect ends encrypted, and protect’s passwords are scrubbed at the end', async () => {
    const job = await runSteps(
      [
        { tool: 'rotate', options: { angle: 90 } },
        { tool: 'compress', options: { level: 'high' } },
        { tool: 'protect', options: { user_password: STEP_PASSWORD, owner_password: `${STEP_PASSWORD}-o` } },
      ],
      FOUR_PAGES,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const pdf = toFile((await quire.client.download(job.id)).body);
    expect(requiresPassword(pdf)).toBe(true);
    expect(encryptionOf(pdf, STEP_PASSWORD)).toMatchObject({ R: 6 });
    expect((job.steps as Step[])[2]!.options).toMatchObject({
      user_password: '[redacted]',
      owner_password: '[redacted]',
    });
    expect(job.options).toEqual({ angle: 90 });
    expectNowhere(STEP_PASSWORD);
  }, 300_000);

  it('protect → compress (lossy) keeps protect’s encryption; later steps open it with the password the chain knows', async () => {
    const job = await runSteps(
      [
        { tool: 'protect', options: { user_password: STEP_PASSWORD, permissions: { copy: false } } },
        { tool: 'compress', options: { level: 'high' } },
        { tool: 'rotate', options: { angle: 180 } },
      ],
      FOUR_PAGES,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result!.name).toBe('pypdf-samples__pdflatex-4-pages-protected-compressed-rotated.pdf');
    expect(job.result!.encryption).toBe('kept');
    const pdf = toFile((await quire.client.download(job.id)).body);
    expect(requiresPassword(pdf)).toBe(true);
    const [protectedStep, compressStep] = (job.result!.steps as { facts: Record<string, unknown> }[]).map(
      (step) => step.facts,
    );
    expect(protectedStep!.encryption).toBe('aes-256');
    // Ghostscript's rewrite, the case that used to return an unencrypted file.
    expect(compressStep).toMatchObject({ lossy_engine: 'ghostscript', encryption: 'kept' });
    expect(encryptionOf(pdf, STEP_PASSWORD)).toMatchObject({ R: 6 });
    expect(pageText(decrypted(pdf, STEP_PASSWORD), 2)).toEqual(pageText(FOUR_PAGES, 2));
    expectNowhere(STEP_PASSWORD);
  }, 300_000);

  it('an owner-only protect → compress stays encrypted with the same permissions', async () => {
    const job = await runSteps(
      [
        { tool: 'protect', options: { owner_password: STEP_PASSWORD, permissions: { print: false } } },
        { tool: 'compress', options: { level: 'high' } },
      ],
      FOUR_PAGES,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const pdf = toFile((await quire.client.download(job.id)).body);
    expect(requiresPassword(pdf)).toBe(false);
    // What protect alone writes for these options: AES-256 and every permission but printing.
    const alone = path.join(scratch, 'owner-only-alone.pdf');
    execFileSync('qpdf', ['--encrypt', '', 'o', '256', '--print=none', '--', FOUR_PAGES, alone]);
    expect(encryptionOf(pdf)).toEqual(encryptionOf(alone));
  }, 300_000);

  it('refuses at creation a later step that gives the input password, with the step’s pointer', async () => {
    const form = new FormData();
    form.set(
      'steps',
      JSON.stringify([
        { tool: 'protect', options: { user_password: 'x1' } },
        { tool: 'rotate', options: { angle: 90, password: 'x1' } },
      ]),
    );
    form.append('file', new Blob([readFileSync(FOUR_PAGES)]), 'a.pdf');
    const response = await quire.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; errors: { pointer: string }[] };
    expect(problem.code).toBe('invalid_options');
    expect(problem.errors.map((e) => e.pointer)).toEqual(['/steps/1/options/password']);
  });
});

/** `file` decrypted with `password`, as a new file. */
function decrypted(file: string, password: string): string {
  const out = path.join(scratch, `dec-${path.basename(file)}`);
  execFileSync('qpdf', [`--password=${password}`, '--decrypt', file, out]);
  return out;
}

/** The secret is in no log line, no job view and no file of the server's data directory (the database and its WAL included). */
function expectNowhere(secret: string): void {
  expect(quire.server.logs.join('\n')).not.toContain(secret);
  for (const entry of readdirSync(quire.server.dataDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    expect(readFileSync(file).includes(secret), file).toBe(false);
  }
}

describe('office-to-pdf with a password', () => {
  it('converts a protected DOCX with its password and refuses it without one or with a wrong one', async () => {
    const locked = path.join(scratch, 'locked.docx');
    execFileSync(
      '/usr/bin/python3',
      [
        path.join(import.meta.dirname, '../support/protected-docx.py'),
        corpusFile('gotenberg__page_1.docx'),
        locked,
        path.join(scratch, 'lo-profile'),
      ],
      { input: `${DOCX_PASSWORD}\n`, timeout: 120_000 },
    );
    expect(readFileSync(locked).subarray(0, 4).toString('hex')).toBe('d0cf11e0');

    const converted = await quire.client.run(
      { tool: 'office-to-pdf', options: { password: DOCX_PASSWORD }, files: [locked] },
      180,
    );
    expect(converted.status, JSON.stringify(converted.error)).toBe('succeeded');
    expect(converted.options).toMatchObject({ password: '[redacted]' });
    const plain = await quire.client.run(
      { tool: 'office-to-pdf', files: [corpusFile('gotenberg__page_1.docx')] },
      180,
    );
    const text = (job: JobBody) =>
      quire.client.download(job.id).then(({ body }) => pageText(toFile(body)).trim());
    expect(await text(converted)).toEqual(await text(plain));

    const none = await quire.client.run({ tool: 'office-to-pdf', files: [locked] }, 180);
    expect(none.status).toBe('failed');
    expect(none.error?.code).toBe('office_encrypted');
    const wrong = await quire.client.run(
      { tool: 'office-to-pdf', options: { password: 'not-it' }, files: [locked] },
      180,
    );
    expect(wrong.error?.code).toBe('invalid_password');
    expectNowhere(DOCX_PASSWORD);
  }, 300_000);
});

describe('encrypted corpus files', () => {
  // An owner password nobody here knows (AES-128) and a non-ASCII user password (AES-256, R5).
  const CORPUS: Array<[string, string | undefined]> = [
    ['pdfjs__issue9972-1.pdf', undefined],
    ['pdfium__encrypted_hello_world_r5.pdf', 'hôtel'],
  ];
  it.each(CORPUS)(
    '%s keeps its encryption through rotate, a lossy compress and page-numbers',
    async (name, password) => {
      const source = corpusFile(name);
      for (const [tool, options] of [
        ['rotate', { angle: 90 }],
        ['compress', { level: 'high' }],
        ['page-numbers', {}],
      ] as const) {
        const job = await quire.client.run(
          { tool, options: { ...options, ...(password ? { password } : {}) }, files: [source] },
          120,
        );
        expect(job.status, `${tool}: ${JSON.stringify(job.error)}`).toBe('succeeded');
        expect(job.result?.encryption, tool).toBe('kept');
        const pdf = toFile((await quire.client.download(job.id)).body);
        expect(encryptionOf(pdf, password), tool).toEqual(encryptionOf(source, password));
      }
    },
    180_000,
  );
});

describe('tools whose purpose meets encryption', () => {
  it('linearize stays linearized once encrypted again; pdfa drops it, as PDF/A forbids encryption', async () => {
    const locked = encrypt(FOUR_PAGES, 'owner');
    const linearized = await quire.client.run({ tool: 'linearize', files: [locked] }, 120);
    expect(linearized.result?.encryption).toBe('kept');
    const pdf = toFile((await quire.client.download(linearized.id)).body);
    expect(encryptionOf(pdf)).toEqual(encryptionOf(locked));
    expect(spawnSync('qpdf', ['--check-linearization', pdf]).stdout.toString()).toMatch(
      /no linearization errors/,
    );
    const archived = await quire.client.run({ tool: 'pdfa', files: [locked] }, 180);
    expect(archived.status, JSON.stringify(archived.error)).toBe('succeeded');
    expect(archived.result?.encryption).toBe('removed');
    expect(encryptionOf(toFile((await quire.client.download(archived.id)).body))).toBeUndefined();
  }, 240_000);
});

describe('merge of several files', () => {
  it('keeps the first file’s encryption, and says removed when only a later file was encrypted', async () => {
    const locked = encrypt(FOUR_PAGES, 'owner');
    const first = await quire.client.run({ tool: 'merge', files: [locked, FOUR_PAGES] }, 120);
    expect(first.result?.encryption).toBe('kept');
    expect(encryptionOf(toFile((await quire.client.download(first.id)).body))).toEqual(encryptionOf(locked));
    const later = await quire.client.run({ tool: 'merge', files: [FOUR_PAGES, locked] }, 120);
    expect(later.result?.encryption).toBe('removed');
    expect(encryptionOf(toFile((await quire.client.download(later.id)).body))).toBeUndefined();
  }, 120_000);
});

describe('signatures a tool breaks', () => {
  const SIGNED = corpusFile('pdfjs__issue16553.pdf');

  it('rotate on a signed file says signatures: "invalidated"; sign adds its own after them and says nothing', async () => {
    const rotated = await quire.client.run({ tool: 'rotate', options: { angle: 90 }, files: [SIGNED] }, 120);
    expect(rotated.status, JSON.stringify(rotated.error)).toBe('succeeded');
    expect(rotated.result?.signatures).toBe('invalidated');

    const sign = published.find((t) => t.name === 'sign')!;
    const example = (sign.options_schema.examples as Record<string, unknown>[])[0]!;
    const signed = await quire.client.run(
      { tool: 'sign', options: await sampleOptions(sign, example), files: [SIGNED] },
      120,
    );
    expect(signed.status, JSON.stringify(signed.error)).toBe('succeeded');
    expect(signed.result?.signatures).toBeUndefined();
    const { body } = await quire.client.download(signed.id);
    expect(body.subarray(0, readFileSync(SIGNED).length).equals(readFileSync(SIGNED))).toBe(true);

    const plain = await quire.client.run(
      { tool: 'rotate', options: { angle: 90 }, files: [FOUR_PAGES] },
      120,
    );
    expect(plain.result?.signatures).toBeUndefined();
    expect(plain.result?.encryption).toBeUndefined();
  }, 240_000);
});
