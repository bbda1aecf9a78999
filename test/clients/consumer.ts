// What the independent-consumer tests share: where the generated clients and tools live, the live
// OpenAPI document of a real server saved to disk, and running an external program with its output.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '../support/corpus.js';

/** Generated code and documents; under .tmp/ so a fresh checkout never type-checks or lints them. */
export const clientsDir = path.join(repoRoot, '.tmp', 'clients');
/** The venv scripts/setup.sh --with-test-tools fills with openapi-python-client and openapi-spec-validator. */
export const openapiToolsBin = path.join(repoRoot, '.tmp', 'openapi-tools', 'bin');

/** openapi-generator's CLI, fetched from Maven Central by scripts/setup.sh --with-test-tools (pinned there). */
export const OPENAPI_GENERATOR_JAR = path.join(
  repoRoot,
  '.tmp',
  'openapi-generator',
  'openapi-generator-cli-7.25.0.jar',
);

/** The small text PDF every client compresses. */
export const samplePdf = 'pypdf-samples__pdflatex-4-pages.pdf';

/** Fetches `${baseUrl}/openapi.json` as a client would and writes it to `file`. */
export async function saveDocument(baseUrl: string, file: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  const text = await response.text();
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return JSON.parse(text);
}

export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` to its end and returns its exit code and output; a non-zero exit is a result, not a throw. */
export function runProgram(
  file: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd ?? repoRoot,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}
