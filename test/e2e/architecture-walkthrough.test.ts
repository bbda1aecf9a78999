// docs/architecture.md's walkthrough is true: the tool file it shows, added next to the real tools
// with no other change, is published, validated and run over HTTP like any tool.
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyToolDefinition } from '../../src/tools/framework/types.js';
import { tools } from '../../src/tools/registry.js';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { pageCount, pageText, toFile } from '../support/pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';

const repo = path.resolve(import.meta.dirname, '../..');
/** A private src/tools/ whose framework/ is the real one, so the doc's relative imports resolve as written. */
const toolsDir = path.join(repo, '.tmp', `walkthrough-${process.pid}`, 'src', 'tools');

/** The first TypeScript block after the walkthrough heading. */
async function walkthroughCode(): Promise<string> {
  const doc = await readFile(path.join(repo, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Walkthrough'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('docs/architecture.md has no walkthrough code block');
  return match[1];
}

let server: TestServer;
let client: Client;
let reverseTool: AnyToolDefinition;

beforeAll(async () => {
  await mkdir(toolsDir, { recursive: true });
  await symlink(path.join(repo, 'src/tools/framework'), path.join(toolsDir, 'framework'), 'dir');
  const file = path.join(toolsDir, 'reverse.ts');
  await writeFile(file, await walkthroughCode());
  ({ reverseTool } = (await import(pathToFileURL(file).href)) as { reverseTool: AnyToolDefinition });
  server = await startTestServer({}, { extras: { tools: [reverseTool] } });
  client = new Client(server.url, (await server.newAccount()).key);
});

afterAll(async () => {
  await server?.close();
  await rm(path.dirname(path.dirname(toolsDir)), { recursive: true, force: true });
});

describe('the walkthrough tool from docs/architecture.md', () => {
  it('is a new tool, not one the registry already has', () => {
    expect(reverseTool.name).toBe('reverse');
    expect(tools.map((t) => t.name)).not.toContain('reverse');
  });

  it('is published in GET /api/v1/tools with its engine available', async () => {
    const list = (await (await client.fetch('/api/v1/tools')).json()) as {
      data: { name: string; available: boolean }[];
    };
    expect(list.data.find((t) => t.name === 'reverse')).toMatchObject({ available: true });
  });

  it('runs over HTTP and puts the pages in reverse order', async () => {
    const input = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
    const job = await client.run({ tool: 'reverse', files: [input] });
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const output = toFile((await client.download(job.id)).body);
    expect(pageCount(output)).toBe(4);
    for (let page = 1; page <= 4; page++) expect(pageText(output, page)).toBe(pageText(input, 5 - page));
  });

  it('has its options validated by the catalogue: an unknown option is 400 invalid_options', async () => {
    const response = await client.createJob({
      tool: 'reverse',
      options: { angle: 90 },
      files: [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')],
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_options');
  });
});
