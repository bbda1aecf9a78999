// Property-based fuzzing of the whole API from its own OpenAPI document (issue 14): Schemathesis
// (`st`, installed into .tmp/api-fuzz by `scripts/setup.sh --with-test-tools`) runs a bounded number
// of generated requests against a real server; no answer may be a 5xx, and every error answer must
// be problem+json (checked here from the HAR of every exchange, whatever the document declares).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';

const st = path.join(repoRoot, '.tmp/api-fuzz/bin/st');
const har = path.join(repoRoot, '.tmp/schemathesis.har');

/**
 * The checks that hold against the generated document, every status a run meets documented and every
 * undeclared method (TRACE, QUERY, … included) answered 405 with `Allow`. Left out:
 * positive_data_acceptance and negative_data_rejection (the multipart body and the job rules are
 * checked beyond what the schema can say).
 */
const CHECKS = [
  'not_a_server_error',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'missing_required_header',
  'ignored_auth',
  'allow_header_conformance',
  'status_code_conformance',
  'unsupported_method',
];

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number; headers: { name: string; value: string }[]; content: { text?: string } };
}

describe('Schemathesis against a running server', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    // No workers: generated jobs would only spend the CPU this run is bounded by.
    // Fuzzing sends thousands of unauthenticated requests from one address: the per-address budget for
    // failed authentication (429) would answer most of them before the 401 that is being checked.
    // With no workers no job ends, so a `Prefer: wait` is held for its whole (capped) time.
    server = await startTestServer(
      { QUIRE_AUTH_FAILURES_PER_MIN: '100000', QUIRE_PREFER_WAIT_MAX_S: '5' },
      { workers: false },
    );
    key = (await server.newAccount()).key;
    await rm(har, { force: true });
  });
  afterAll(() => server.close());

  it('finds no 5xx and no error outside problem+json in a bounded run', async () => {
    expect(existsSync(st), 'run `bash scripts/setup.sh --with-test-tools` to install Schemathesis').toBe(
      true,
    );
    const args = [
      'run',
      `${server.url}/openapi.json`,
      '--header',
      `Authorization: Bearer ${key}`,
      '--checks',
      CHECKS.join(','),
      '--phases',
      'examples,coverage,fuzzing',
      '--max-examples',
      '10',
      // Bounded for two shared cores; a fixed seed keeps the run reproducible.
      '--max-time',
      '75',
      '--seed',
      '14',
      '--workers',
      '2',
      // `GET /api/v1/jobs/{id}?wait=60` on a job the run created is held for a minute (no worker ends
      // it); past st's default 10 s it would be a network error.
      '--request-timeout',
      '65',
      '--report',
      'har',
      '--report-har-path',
      har,
      '--no-color',
      // No example database left in the repository (.schemathesis/).
      '--generation-database',
      'none',
    ];
    let result = await runSchemathesis(args);
    // CPython before 3.11.8 can fail ast.parse with this SystemError after a RecursionError (gh-106905),
    // and Hypothesis parses a strategy's source while reporting one: a crash of the fuzzer's own
    // interpreter, with no request behind it (seen twice in recent full suites, on this machine's 3.11.7).
    // Only that crash is run again, once; any finding of the API fails at once.
    if (result.code !== 0 && result.output.includes(INTERPRETER_CRASH)) result = await runSchemathesis(args);
    expect(result.code, result.output.slice(-6_000)).toBe(0);

    const entries = (JSON.parse(await readFile(har, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
    expect(entries.length).toBeGreaterThan(500);
    const contentType = (e: HarEntry) =>
      e.response.headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '';
    const offenders = entries
      .filter(
        (e) =>
          e.response.status >= 500 ||
          (e.response.status >= 400 && !contentType(e).startsWith('application/problem+json')),
      )
      .map(
        (e) => `${e.request.method} ${e.request.url.slice(0, 120)} → ${e.response.status} ${contentType(e)}`,
      );
    expect(offenders).toEqual([]);
    process.stdout.write(`schemathesis: ${entries.length} requests, checks ${CHECKS.join(', ')}\n`);
  }, 220_000);
});

/** CPython's message for gh-106905 (fixed in 3.11.8 and 3.12.1). */
const INTERPRETER_CRASH = 'SystemError: AST constructor recursion depth mismatch';

function runSchemathesis(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // Run from .tmp/: st keeps a cache directory (.schemathesis/) in its working directory.
    execFile(
      st,
      args,
      {
        cwd: path.join(repoRoot, '.tmp'),
        maxBuffer: 64 * 1024 * 1024,
        // schemathesis_hooks.py teaches st to send tus chunks (application/offset+octet-stream).
        env: {
          ...process.env,
          PYTHONPATH: path.join(repoRoot, 'test/hostile'),
          SCHEMATHESIS_HOOKS: 'schemathesis_hooks',
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}
