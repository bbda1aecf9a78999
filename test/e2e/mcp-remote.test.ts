// The MCP server over streamable HTTP, driven by the official SDK client against a real server:
// the tool list, an upload through the tus URL the upload tool hands out, compress with a smaller
// download, OCR with progress notifications, and the key's scopes (docs/agents.md).
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXED_TOOL_NAMES, runToolName } from '../../src/http/mcp/tool-set.js';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const quire = useTestServer();
let client: Client;

async function connect(apiKey: string): Promise<Client> {
  const mcp = new Client({ name: 'quire-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${quire.server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return mcp;
}

// biome-ignore lint/suspicious/noExplicitAny: the answers' shapes are what the assertions check
type Json = any;

function structured(result: unknown): Record<string, Json> {
  const call = result as CallToolResult;
  expect(call.isError, JSON.stringify(call.content)).not.toBe(true);
  return call.structuredContent as Record<string, Json>;
}

/** Sends a file to a tus upload URL with one PATCH, as any tus client would. */
async function patchUpload(url: string, file: string, apiKey: string): Promise<void> {
  const response = await fetch(url, {
    method: 'PATCH',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      'Tus-Resumable': '1.0.0',
      'Upload-Offset': '0',
      'Content-Type': 'application/offset+octet-stream',
    },
    body: await readFile(file),
  });
  expect(response.status).toBe(204);
}

async function uploadThroughTool(file: string, mcp = client, apiKey = quire.key): Promise<string> {
  const upload = structured(
    await mcp.callTool({
      name: 'start_upload',
      arguments: { filename: 'scan.pdf', size: (await stat(file)).size },
    }),
  );
  expect(upload.upload_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/uploads\/upl_/);
  await patchUpload(upload.upload_url, file, apiKey);
  return upload.upload_id;
}

beforeAll(async () => {
  client = await connect(quire.key);
}, 60_000);
afterAll(() => client?.close());

describe('MCP over streamable HTTP', () => {
  it('lists the fixed tools and one run tool per available catalogue tool, each schema valid JSON Schema', async () => {
    const { tools } = await client.listTools();
    const catalog = (await (
      await fetch(`${quire.server.url}/api/v1/tools`, { headers: { Authorization: `Bearer ${quire.key}` } })
    ).json()) as { data: Array<{ name: string; available: boolean }> };
    const expected = [
      ...FIXED_TOOL_NAMES,
      ...catalog.data.filter((t) => t.available).map((t) => runToolName(t.name)),
    ];
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    // docs/agents.md lists the same fixed tools, then `run_<tool>` for the catalogue's.
    const docs = readFileSync(path.join(repoRoot, 'docs', 'agents.md'), 'utf8').split('## The tools')[1]!;
    const documented = [...docs.matchAll(/^\| `([a-z_<>]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...FIXED_TOOL_NAMES, 'run_<tool>']);
    for (const tool of tools) {
      // Valid against the JSON Schema meta-schema, and compiles. (Ajv's strict mode is a style check:
      // it refuses `required` in an `if`/`then` branch that declares no properties, which the
      // catalogue's option schemas use.)
      const ajv = new Ajv({ strict: false });
      expect(ajv.validateSchema(tool.inputSchema), `${tool.name}: ${ajv.errorsText()}`).toBe(true);
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(tool.annotations?.readOnlyHint, tool.name).toBeTypeOf('boolean');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('cancel_job')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('get_job')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('run_compress')?.annotations).toMatchObject({
      readOnlyHint: false,
      openWorldHint: true,
    });
    const compress = byName.get('run_compress')!.inputSchema as { properties: Record<string, Json> };
    expect(compress.properties.options.properties.level).toBeDefined();
    const described = structured(
      await client.callTool({ name: 'describe_tool', arguments: { tool: 'compress' } }),
    );
    expect(described).toMatchObject({ name: 'compress', mcp_tool: 'run_compress' });
    expect(described.options_schema).toEqual(compress.properties.options);
    const listed = structured(await client.callTool({ name: 'list_tools', arguments: {} }));
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(catalog.data.map((t) => t.name));
    expect(listed.limits.plan).toBe('business');
  });

  it('compresses a corpus PDF uploaded through the upload tool and downloads a smaller file', async () => {
    const input = corpusFile('ocrmypdf__c02-22.pdf');
    const uploadId = await uploadThroughTool(input);
    const answer = structured(
      await client.callTool({
        name: 'run_compress',
        arguments: { inputs: [{ upload_id: uploadId }], options: { level: 'high' } },
      }),
    );
    expect(answer.job.status).toBe('succeeded');
    expect(answer.result.download_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\//);
    const download = await fetch(answer.result.download_url);
    expect(download.status).toBe(200);
    const body = Buffer.from(await download.arrayBuffer());
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(body.length).toBeLessThan((await stat(input)).size);
  }, 120_000);

  it('runs OCR and sends at least three rising progress notifications', async () => {
    const uploadId = await uploadThroughTool(corpusFile('ocrmypdf__c02-22.pdf'));
    const seen: Progress[] = [];
    const answer = structured(
      await client.callTool(
        {
          name: 'run_ocr',
          arguments: { inputs: [{ upload_id: uploadId }], options: { languages: ['eng'] } },
        },
        undefined,
        { onprogress: (p) => seen.push(p), timeout: 300_000 },
      ),
    );
    expect(answer.job.status).toBe('succeeded');
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const values = seen.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(values.at(-1)).toBe(100);
  }, 300_000);

  it('returns a small JSON result inline and the job of a run that does not wait', async () => {
    const uploadId = await uploadThroughTool(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
    const queued = structured(
      await client.callTool({
        name: 'run_info',
        arguments: { inputs: [{ upload_id: uploadId }], wait_seconds: 0 },
      }),
    );
    expect(queued.result).toBeUndefined();
    const done = structured(
      await client.callTool({ name: 'wait_for_job', arguments: { job_id: queued.job.id } }),
    );
    expect(done.job.status).toBe('succeeded');
    expect(done.result.inline).toMatchObject({ pages: 4 });
  }, 120_000);

  it('gives a text result over 64 KiB as a link only, and one under it inline', async () => {
    const book = await uploadThroughTool(corpusFile('pdfjs__freeculture.pdf'));
    const long = structured(
      await client.callTool({ name: 'run_extract_text', arguments: { inputs: [{ upload_id: book }] } }),
    );
    expect(long.result.size).toBeGreaterThan(64 * 1024);
    expect(long.result.inline).toBeUndefined();
    expect(long.result.inline_omitted).toMatch(/larger than 65536 bytes/);
    const short = await uploadThroughTool(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
    const text = structured(
      await client.callTool({ name: 'run_extract_text', arguments: { inputs: [{ upload_id: short }] } }),
    );
    expect(text.result.inline).toBeTypeOf('string');
    expect(text.result.inline.length).toBeGreaterThan(100);
  }, 120_000);

  it('runs a chain of steps as one job, and cancels a job it started without waiting', async () => {
    const uploadId = await uploadThroughTool(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
    const chained = structured(
      await client.callTool({
        name: 'run_steps',
        arguments: {
          inputs: [{ upload_id: uploadId }],
          steps: [{ tool: 'rotate', options: { angle: 90 } }, { tool: 'compress' }],
        },
      }),
    );
    expect(chained.job.status).toBe('succeeded');
    expect(chained.job.steps.map((s: { tool: string }) => s.tool)).toEqual(['rotate', 'compress']);
    const scan = await uploadThroughTool(corpusFile('ocrmypdf__c02-22.pdf'));
    const started = structured(
      await client.callTool({
        name: 'run_ocr',
        arguments: { inputs: [{ upload_id: scan }], wait_seconds: 0 },
      }),
    );
    const canceled = structured(
      await client.callTool({ name: 'cancel_job', arguments: { job_id: started.job.id } }),
    );
    expect(canceled.job).toMatchObject({ id: started.job.id, status: 'canceled' });
    const read = structured(
      await client.callTool({ name: 'get_job', arguments: { job_id: started.job.id } }),
    );
    expect(read.job.status).toBe('canceled');
  }, 120_000);

  it('runs a saved recipe by name and the job records its version', async () => {
    const saved = await fetch(`${quire.server.url}/api/v1/recipes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${quire.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'mcp-turn-and-shrink',
        steps: [
          { tool: 'rotate', options: { angle: 90 } },
          { tool: 'compress', options: { level: 'low' } },
        ],
      }),
    });
    expect(saved.status).toBe(201);
    const uploadId = await uploadThroughTool(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
    const answer = structured(
      await client.callTool({
        name: 'run_recipe',
        arguments: { recipe: 'mcp-turn-and-shrink', inputs: [{ upload_id: uploadId }] },
      }),
    );
    expect(answer.job.status).toBe('succeeded');
    expect(answer.job.recipe).toMatchObject({ name: 'mcp-turn-and-shrink', version: 1 });
    expect(answer.job.steps.map((s: { tool: string }) => s.tool)).toEqual(['rotate', 'compress']);
    expect(answer.result.download_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\//);
  }, 120_000);

  it('never echoes a secret option: the answer shows the API view with it redacted', async () => {
    const uploadId = await uploadThroughTool(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
    const result = (await client.callTool({
      name: 'run_protect',
      arguments: { inputs: [{ upload_id: uploadId }], options: { user_password: 'mcp-secret-4711' } },
    })) as CallToolResult;
    expect(structured(result).job.options.user_password).toBe('[redacted]');
    expect(JSON.stringify(result)).not.toContain('mcp-secret-4711');
    const logs = quire.server.logs.join('\n');
    expect(logs).not.toContain('mcp-secret-4711');
    expect(logs).not.toContain(quire.key);
    expect(logs).toContain('"route":"/mcp"');
  }, 120_000);

  it('tells a key without results:read that the job succeeded, without a result', async () => {
    const { accountId } = await quire.server.newAccount();
    const jobsOnly = await quire.server.keyFor(accountId, ['jobs:write', 'jobs:read']);
    const mcp = await connect(jobsOnly);
    const uploadId = await uploadThroughTool(
      corpusFile('pypdf-samples__pdflatex-4-pages.pdf'),
      mcp,
      jobsOnly,
    );
    const answer = structured(
      await mcp.callTool({ name: 'run_info', arguments: { inputs: [{ upload_id: uploadId }] } }),
    );
    await mcp.close();
    expect(answer.job.status).toBe('succeeded');
    expect(answer.result).toBeUndefined();
    expect(answer.result_unavailable).toMatchObject({
      code: 'insufficient_scope',
      required_scope: 'results:read',
    });
  }, 120_000);

  it('answers /mcp without a key with 401 problem+json', async () => {
    const response = await fetch(`${quire.server.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { code: string }).code).toBe('unauthenticated');
    const mcp = new Client({ name: 'quire-test', version: '1.0.0' });
    await expect(
      mcp.connect(new StreamableHTTPClientTransport(new URL(`${quire.server.url}/mcp`))),
    ).rejects.toThrow(/401/);
  });

  it('gives an MCP tool error naming jobs:write to a key without it, and creates no job', async () => {
    const { accountId } = await quire.server.newAccount();
    const readOnly = await connect(await quire.server.keyFor(accountId, ['jobs:read', 'results:read']));
    const result = (await readOnly.callTool({
      name: 'run_compress',
      arguments: { inputs: [{ file_url: 'https://example.com/a.pdf' }] },
    })) as CallToolResult;
    await readOnly.close();
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('jobs:write');
    expect(result.structuredContent).toMatchObject({
      error: { code: 'insufficient_scope', required_scope: 'jobs:write' },
    });
  });

  it('refuses arguments that do not fit the tool schema with the field named', async () => {
    const result = (await client.callTool({
      name: 'run_compress',
      arguments: { inputs: [{ upload_id: 'upl_x' }], options: { level: 'extreme' } },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('/options/level');
  });
});
