// `npm run corpus -- <dir> [deadline s] [tool,…]`: pushes every PDF of <dir>/MANIFEST.tsv through
// info, repair, compress, rotate, pdf-to-images, extract-text and validate (or the tools named, pdf-to-markdown
// among them) on a real server, prints a Markdown table of outcomes (stdout) and exits 1 on any
// mismatch with the manifest's `expected`, stuck job or crash.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Api, type Outcome } from './jobs.js';
import { startServer } from './server.js';

interface Row {
  file: string;
  encrypted: string;
  password: string;
  expected: string;
  features: string[];
}

interface PublishedTool {
  name: string;
  available: boolean;
  options_schema: { properties?: Record<string, unknown> };
}

const TOOLS = ['info', 'repair', 'compress', 'rotate', 'pdf-to-images', 'extract-text', 'validate'];
/**
 * Tools run only when named (`npm run corpus -- <dir> <deadline> pdf-to-markdown`): converting every
 * page, scans OCRed first, takes far longer than the CI run of the default set allows.
 */
const ON_REQUEST = ['pdf-to-markdown'];
/** Options per tool; page-taking tools look at the first page only to keep the run short. */
const OPTIONS: Record<string, Record<string, unknown>> = { rotate: { angle: 90 } };
const FIRST_PAGE_TOOLS = new Set(['pdf-to-images', 'extract-text']);
/** Outcomes that mean the service itself broke, not the file. */
const CRASHES = new Set(['worker_lost', 'internal_error', 'transport']);

function readManifest(dir: string): Row[] {
  const [header, ...lines] = readFileSync(path.join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const columns = header!.split('\t');
  const get = (cells: string[], name: string) => cells[columns.indexOf(name)] ?? '';
  return lines
    .map((line) => line.split('\t'))
    .map((c) => ({
      file: get(c, 'file'),
      encrypted: get(c, 'encrypted'),
      password: get(c, 'password'),
      expected: get(c, 'expected'),
      features: get(c, 'features').split(','),
    }))
    .filter((row) => row.file.toLowerCase().endsWith('.pdf'));
}

/** `user=<u>;owner=<o>` → the user password (what opens the file). */
const userPassword = (row: Row) => /(?:^|;)user=([^;]*)/.exec(row.password)?.[1] ?? '';

/** The outcomes the manifest allows for one tool on one file. */
function allowed(row: Row, tool: string, takesPassword: boolean): string[] {
  if (row.expected === 'corrupt') return ['pdf_corrupt', 'unsupported_file'];
  if (row.encrypted === 'user-password' && !takesPassword) return ['pdf_encrypted'];
  // validate judges the upload as received: veraPDF's parser rebuilds less than qpdf does.
  if (tool === 'validate' && row.expected === 'repairable') return ['ok', 'pdf_corrupt'];
  // An owner-password file is validated as it is, when veraPDF can decrypt it with the empty password.
  if (tool === 'validate' && row.encrypted === 'owner-only') return ['ok', 'pdf_encrypted'];
  // veraPDF stops on some structures qpdf only warns about (pdfium__document_aactions.pdf: "Invalid
  // page tree"; its command line fails on it too): the job says so with engine_failed.
  if (tool === 'validate' && row.features.includes('qpdf-warnings')) return ['ok', 'engine_failed'];
  // qpdf-based tools reconstruct damaged files; a renderer may still give up on one.
  if (row.expected === 'repairable' && tool !== 'repair') return ['ok', 'pdf_corrupt'];
  return ['ok'];
}

function optionsFor(row: Row, tool: PublishedTool): Record<string, unknown> {
  const props = tool.options_schema.properties ?? {};
  const options: Record<string, unknown> = { ...OPTIONS[tool.name] };
  if (FIRST_PAGE_TOOLS.has(tool.name) && 'pages' in props) options.pages = '1';
  if ('password' in props && row.encrypted === 'user-password') options.password = userPassword(row);
  return options;
}

interface Result extends Outcome {
  row: Row;
  tool: string;
  problem?: string;
}

function judge(row: Row, tool: PublishedTool, outcome: Outcome): string | undefined {
  if (outcome.outcome === 'stuck') return 'stuck past the deadline';
  if (CRASHES.has(outcome.outcome)) return `crash: ${outcome.outcome}`;
  const ok = allowed(row, tool.name, 'password' in (tool.options_schema.properties ?? {}));
  if (!ok.includes(outcome.outcome)) return `expected ${ok.join(' or ')}, got ${outcome.outcome}`;
  if (outcome.checkClean === false) return 'repaired file fails qpdf --check';
  return undefined;
}

async function runAll(dir: string, deadlineMs: number, workers: number, names: readonly string[]) {
  const server = await startServer(workers);
  try {
    const api = new Api(server.url, server.key);
    const catalogue = (await (await api.fetch('/api/v1/tools')).json()) as { data: PublishedTool[] };
    const tools = new Map(catalogue.data.filter((t) => t.available).map((t) => [t.name, t]));
    const rows = readManifest(dir);
    const tasks = rows.flatMap((row) =>
      names.flatMap((name) => (tools.has(name) ? [{ row, tool: tools.get(name)! }] : [])),
    );
    const results: Result[] = [];
    // Twice the workers in flight keeps them busy without queueing jobs behind the deadline clock.
    const lanes = Array.from({ length: workers * 2 }, async () => {
      for (let task = tasks.shift(); task; task = tasks.shift()) {
        const file = path.join(dir, task.row.file);
        const outcome = await api
          .runJob(file, task.tool.name, optionsFor(task.row, task.tool), deadlineMs)
          .catch(() => ({ outcome: 'transport', seconds: 0 }));
        const problem = judge(task.row, task.tool, outcome);
        results.push({ ...outcome, row: task.row, tool: task.tool.name, ...(problem ? { problem } : {}) });
        process.stderr.write(problem ? 'x' : '.');
      }
    });
    await Promise.all(lanes);
    process.stderr.write('\n');
    return { rows, tools, results, crash: server.exited() };
  } finally {
    await server.stop();
  }
}

function cell(result: Result | undefined): string {
  if (!result) return 'n/a';
  return `${result.outcome} ${result.seconds.toFixed(2)}${result.problem ? ' ✗' : ''}`;
}

async function main(): Promise<number> {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: npm run corpus -- <corpus dir> [deadline seconds] [tool,…]\n');
    return 2;
  }
  const deadlineMs = Number(process.argv[3] ?? '60') * 1000;
  const started = Date.now();
  const names = process.argv[4] ? process.argv[4].split(',') : TOOLS;
  const unknown = names.filter((n) => !TOOLS.includes(n) && !ON_REQUEST.includes(n));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown tool(s) ${unknown.join(', ')}; known: ${[...TOOLS, ...ON_REQUEST].join(', ')}\n`,
    );
    return 2;
  }
  const workers = os.availableParallelism() * 2;
  const { rows, results, crash } = await runAll(path.resolve(dir), deadlineMs, workers, names);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const problems = results.filter((r) => r.problem);
  const out: string[] = [
    '# Corpus results',
    '',
    `Made by \`npm run corpus -- ${dir}\` (scripts/corpus/) on ${new Date().toISOString().slice(0, 10)}, ` +
      `${os.availableParallelism()} cores: a real \`quire serve\` on a temporary data directory, every ` +
      'job through the HTTP API. Cells: outcome (`ok` or the job’s error code) and seconds from upload ' +
      'to terminal state; `n/a` = the tool is not available on this server; ✗ = not what the manifest expects.',
    '',
    `| file | expected | ${names.join(' | ')} |`,
    `|---|---|${names.map(() => '---').join('|')}|`,
  ];
  for (const row of rows) {
    const cells = names.map((t) => cell(results.find((r) => r.row === row && r.tool === t)));
    const expected = row.encrypted === 'user-password' ? `${row.expected}, password` : row.expected;
    out.push(`| ${row.file} | ${expected} | ${cells.join(' | ')} |`);
  }
  const ok = results.filter((r) => r.outcome === 'ok').length;
  out.push(
    '',
    `${rows.length} files, ${results.length} jobs in ${seconds} s: ${ok} ok, ${results.length - ok} refused ` +
      `or failed as expected or not; ${problems.length} mismatches, ` +
      `${results.filter((r) => r.outcome === 'stuck').length} stuck, ${crash ? 'server crashed' : 'no crashes'}.`,
  );
  for (const p of problems) out.push(`- ✗ ${p.row.file} ${p.tool}: ${p.problem}`);
  if (crash) out.push(`- ✗ ${crash}`);
  process.stdout.write(`${out.join('\n')}\n`);
  return problems.length > 0 || crash ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`corpus runner failed: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
