// A TypeScript consumer of the live /openapi.json: openapi-typescript generates the types once per
// run, tsc (strict) checks test/clients/ts/compress-client.ts against them, and the compiled client
// compresses a PDF through openapi-fetch and reads the documented problem body of a refused request.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { clientsDir, runProgram, samplePdf } from './consumer.js';

const tsDir = path.join(clientsDir, 'ts');
/** The fixed path compress-client.ts imports its types from. */
const schemaFile = path.join(tsDir, 'schema.d.ts');
const clientSource = path.join(repoRoot, 'test', 'clients', 'ts', 'compress-client.ts');
const compiledClient = path.join(tsDir, 'out', 'compress-client.js');

let server: TestServer;
/** tsc's verdict on the client, compiled once: its diagnostics are one test, running it another. */
let compiled: { code: number; output: string };

/**
 * openapi-typescript's documented option for uploads: `format: binary` becomes `Blob` (its default
 * is `string`, which no multipart body built by fetch can hold).
 */
async function generateTypes(url: string): Promise<void> {
  const nodes = await openapiTS(new URL('/openapi.json', url), {
    transform: (schema) =>
      schema.format === 'binary' ? ts.factory.createTypeReferenceNode('Blob') : undefined,
  });
  await mkdir(tsDir, { recursive: true });
  await writeFile(schemaFile, astToString(nodes));
}

beforeAll(async () => {
  server = await startTestServer();
  await rm(tsDir, { recursive: true, force: true });
  await generateTypes(server.url);
  const tsc = await runProgram(path.join(repoRoot, 'node_modules', '.bin', 'tsc'), [
    '-p',
    path.join(repoRoot, 'test', 'clients', 'ts', 'tsconfig.json'),
  ]);
  compiled = { code: tsc.code, output: tsc.stdout + tsc.stderr };
}, 120_000);
afterAll(() => server?.close());

describe('a TypeScript client generated from the OpenAPI document', () => {
  it('is written without type assertions, non-null assertions, any or suppressions', async () => {
    const text = await readFile(clientSource, 'utf8');
    const source = ts.createSourceFile(clientSource, text, ts.ScriptTarget.ES2022, true);
    const escapes: string[] = [];
    const visit = (node: ts.Node): void => {
      const constAssertion =
        ts.isAsExpression(node) && ts.isTypeReferenceNode(node.type) && node.type.getText() === 'const';
      if (
        (ts.isAsExpression(node) && !constAssertion) ||
        ts.isTypeAssertionExpression(node) ||
        ts.isNonNullExpression(node) ||
        node.kind === ts.SyntaxKind.AnyKeyword
      )
        escapes.push(node.getText());
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(escapes).toEqual([]);
    expect(text).not.toMatch(/@ts-(ignore|expect-error|nocheck)|biome-ignore/);
  });

  it('type-checks under tsc strict against the generated types', async () => {
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);
  });

  it('creates a compress job, waits for it, follows the download to a valid PDF and reads a typed problem', async () => {
    expect(compiled.code, 'the client does not compile against the generated types').toBe(0);
    const { accountId, key } = await server.newAccount();
    const output = path.join(tsDir, 'compressed.pdf');
    const run = await runProgram(process.execPath, [
      compiledClient,
      server.url,
      key,
      corpusFile(samplePdf),
      output,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);

    expect(report.job.createdStatus).toBe(201);
    expect(report.job.status).toBe('succeeded');
    const stored = await server.runtime.db.jobs.get(accountId, report.job.id);
    expect(stored?.status).toBe('succeeded');
    expect(stored?.tool).toBe('compress');
    expect(stored?.metadata).toEqual({ client: 'openapi-fetch' });

    expect(report.download.redirected).toBe(true);
    expect(report.download.contentType).toMatch(/^application\/pdf/);
    const pdf = await readFile(output);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const qpdf = await runProgram('qpdf', ['--check', output]);
    expect(qpdf.code).toBe(0);

    expect(report.refused).toEqual({
      status: 400,
      contentType: expect.stringMatching(/^application\/problem\+json/),
      code: 'invalid_options',
    });
  }, 120_000);
});
