// The live /openapi.json as third-party validators read it: openapi-spec-validator (the OpenAPI 3.1
// schema and its JSON Schema dialect) and Redocly CLI's recommended ruleset (redocly.yaml) report no error.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { clientsDir, openapiToolsBin, runProgram, saveDocument } from './consumer.js';

const documentFile = path.join(clientsDir, 'lint', 'openapi.json');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { workers: false });
  await saveDocument(server.url, documentFile);
});
afterAll(() => server?.close());

interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}

describe('the OpenAPI document under independent validators', () => {
  it('passes openapi-spec-validator', async () => {
    const run = await runProgram(path.join(openapiToolsBin, 'openapi-spec-validator'), [documentFile]);
    expect(run.stdout + run.stderr).toMatch(/: OK\s*$/);
    expect(run.code).toBe(0);
  });

  it('has no error under Redocly CLI lint with the recommended ruleset', async () => {
    const run = await runProgram(
      path.join(repoRoot, 'node_modules', '.bin', 'redocly'),
      ['lint', '--config', path.join(repoRoot, 'redocly.yaml'), '--format', 'json', documentFile],
      { env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    const report: { problems: RedoclyProblem[] } = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
    const describe = (p: RedoclyProblem) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;
    const errors = report.problems.filter((p) => p.severity === 'error').map(describe);
    expect(errors).toEqual([]);
    expect(run.code).toBe(0);
  });
});
