// A Python consumer of the live /openapi.json: openapi-python-client (from the venv scripts/setup.sh
// --with-test-tools fills) generates the package once per run, and test/clients/python/
// compress_client.py compresses a PDF with it and reads the documented problem of a refused request.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { clientsDir, openapiToolsBin, type ProgramRun, runProgram, samplePdf } from './consumer.js';

const pythonDir = path.join(clientsDir, 'python');
const packageDir = path.join(pythonDir, 'quire-client');
const driver = path.join(repoRoot, 'test', 'clients', 'python', 'compress_client.py');

let server: TestServer;
let generated: ProgramRun;

beforeAll(async () => {
  server = await startTestServer();
  await rm(pythonDir, { recursive: true, force: true });
  generated = await runProgram(
    path.join(openapiToolsBin, 'openapi-python-client'),
    [
      'generate',
      '--url',
      `${server.url}/openapi.json`,
      '--output-path',
      packageDir,
      '--config',
      path.join(repoRoot, 'test', 'clients', 'python', 'generator.yaml'),
    ],
    // The generator formats its output with ruff, installed beside it.
    { env: { PATH: `${openapiToolsBin}:${process.env.PATH}` } },
  );
}, 120_000);
afterAll(() => server?.close());

describe('a Python client generated from the OpenAPI document', () => {
  it('is generated for every operation without warnings', () => {
    expect(generated.code).toBe(0);
    // The generator leaves out what it cannot model and says so in a WARNING block.
    const warnings = (generated.stdout + generated.stderr)
      .split(/\n(?=WARNING )/)
      .filter((block) => block.startsWith('WARNING '))
      .map((block) => block.split('\n\n').slice(0, 2).join(': ').replace(/\s+/g, ' ').trim());
    expect(warnings).toEqual([]);
  });

  it('creates a compress job (201 parsed as Job), waits for it, downloads a valid PDF through getFile and reads a Problem', async () => {
    const { accountId, key } = await server.newAccount();
    const output = path.join(pythonDir, 'compressed.pdf');
    const run = await runProgram(
      path.join(openapiToolsBin, 'python'),
      [driver, server.url, key, corpusFile(samplePdf), output],
      { env: { PYTHONPATH: packageDir, PYTHONDONTWRITEBYTECODE: '1' } },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);

    expect(report.job.status).toBe('succeeded');
    const stored = await server.runtime.db.jobs.get(accountId, report.job.id);
    expect(stored?.status).toBe('succeeded');
    expect(stored?.tool).toBe('compress');
    expect(stored?.metadata).toEqual({ client: 'openapi-python-client' });

    expect(report.download).toMatchObject({ redirect: 302, status: 200, head: '%PDF-' });
    expect(report.download.contentType).toMatch(/^application\/pdf/);
    expect((await readFile(output)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await runProgram('qpdf', ['--check', output])).code).toBe(0);

    expect(report.refused).toEqual({
      status: 400,
      parsedAs: 'Problem',
      code: 'invalid_options',
      contentType: expect.stringMatching(/^application\/problem\+json/),
    });
  }, 120_000);
});
