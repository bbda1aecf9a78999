// `quirectl mcp` as an MCP client starts it: compiled, over stdio, against a real server, driven by
// the official SDK client. Local files are read and written only inside the --allow directory.
import { copyFile, mkdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile } from '../../support/corpus.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { buildSdk, scratchDir } from './support.js';

let server: TestServer;
let dir: string;
let build: string;
let client: Client;
let allowed: string;
let outside: string;
let key: string;
const scan = corpusFile('ocrmypdf__c02-22.pdf');

/** `quirectl mcp` with these arguments, as an MCP client starts it, connected over stdio. */
async function startQuirectlMcp(args: string[]): Promise<Client> {
  const mcp = new Client({ name: 'quire-test', version: '1.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(build, 'cli', 'main.js'), 'mcp', ...args],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        XDG_CONFIG_HOME: path.join(dir, 'config'),
        XDG_STATE_HOME: path.join(dir, 'state'),
        QUIRE_URL: server.url,
        QUIRE_API_KEY: key,
      },
      stderr: 'inherit',
    }),
  );
  return mcp;
}

beforeAll(async () => {
  [server, dir, build] = await Promise.all([startTestServer(), scratchDir('mcp'), buildSdk('mcp')]);
  ({ key } = await server.newAccount());
  allowed = path.join(dir, 'allowed');
  outside = path.join(dir, 'outside');
  await mkdir(allowed);
  await mkdir(outside);
  await copyFile(scan, path.join(allowed, 'scan.pdf'));
  await copyFile(scan, path.join(outside, 'secret.pdf'));
  await symlink(path.join(outside, 'secret.pdf'), path.join(allowed, 'link.pdf'));
  await symlink(outside, path.join(allowed, 'out-dir'));
  client = await startQuirectlMcp(['--allow', allowed]);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(build, { recursive: true, force: true });
});

const compress = (args: Record<string, unknown>) =>
  client.callTool({
    name: 'run_compress',
    arguments: { options: { level: 'high' }, ...args },
  }) as Promise<CallToolResult>;

function expectRefused(result: CallToolResult, reason: RegExp): void {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toMatchObject({ error: { code: 'path_refused' } });
  expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(reason);
}

describe('quirectl mcp over stdio', () => {
  it('offers the server’s tools with local paths added to inputs and save_to to run tools', async () => {
    const { tools } = await client.listTools();
    const remote = new Client({ name: 'quire-test', version: '1.0.0' });
    await remote.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    const remoteNames = (await remote.listTools()).tools.map((t) => t.name);
    await remote.close();
    // One tool set: the same names as over streamable HTTP.
    expect(tools.map((t) => t.name)).toEqual(remoteNames);
    expect(remoteNames).toContain('run_compress');
    const schema = tools.find((t) => t.name === 'run_compress')!.inputSchema as {
      properties: Record<string, { items?: { properties: Record<string, unknown> } }>;
    };
    expect(Object.keys(schema.properties.inputs!.items!.properties)).toContain('path');
    expect(schema.properties.save_to).toBeDefined();
  });

  it('compresses a file of the allowed directory, named relative to it, and writes the result beside it', async () => {
    const target = path.join(allowed, 'scan-small.pdf');
    const seen: number[] = [];
    const result = (await client.callTool(
      {
        name: 'run_compress',
        arguments: {
          inputs: [{ path: 'scan.pdf' }],
          options: { level: 'high' },
          save_to: target,
        },
      },
      undefined,
      { onprogress: (p) => seen.push(p.progress) },
    )) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ job: { status: 'succeeded' }, saved_to: target });
    const written = await readFile(target);
    expect(written.subarray(0, 5).toString()).toBe('%PDF-');
    expect(written.length).toBeLessThan((await stat(scan)).size);
    // The server's progress notifications reach the stdio client under its own token.
    expect(seen.at(-1)).toBe(100);
  }, 120_000);

  it('refuses a file outside the allowed directory, a ".." path and symlinks that point out', async () => {
    expectRefused(
      await compress({ inputs: [{ path: path.join(outside, 'secret.pdf') }] }),
      /outside the allowed/,
    );
    expectRefused(await compress({ inputs: [{ path: '../outside/secret.pdf' }] }), /"\.\." is not allowed/);
    // One bad path among good ones refuses the call as a whole.
    expectRefused(
      (await client.callTool({
        name: 'run_merge',
        arguments: { inputs: [{ path: 'scan.pdf' }, { path: path.join(outside, 'secret.pdf') }] },
      })) as CallToolResult,
      /outside the allowed/,
    );
    expectRefused(
      await compress({ inputs: [{ path: path.join(allowed, 'link.pdf') }] }),
      /outside the allowed/,
    );
    expectRefused(
      await compress({ inputs: [{ path: path.join(allowed, 'out-dir', 'secret.pdf') }] }),
      /outside the allowed/,
    );
  });

  it('takes no local path at all without --allow', async () => {
    const bare = await startQuirectlMcp([]);
    try {
      const result = (await bare.callTool({
        name: 'run_compress',
        arguments: { inputs: [{ path: path.join(allowed, 'scan.pdf') }] },
      })) as CallToolResult;
      expectRefused(result, /local files are not allowed/);
    } finally {
      await bare.close();
    }
  });

  it('refuses to write a result outside the allowed directory or through a symlink, before any job', async () => {
    const jobCount = async () =>
      (
        (await (
          await fetch(`${server.url}/api/v1/jobs`, { headers: { Authorization: `Bearer ${key}` } })
        ).json()) as {
          data: unknown[];
        }
      ).data.length;
    const before = await jobCount();
    const input = [{ path: 'scan.pdf' }];
    expectRefused(
      await compress({ inputs: input, save_to: path.join(outside, 'x.pdf') }),
      /outside the allowed/,
    );
    expectRefused(
      await compress({ inputs: input, save_to: path.join(allowed, 'out-dir', 'x.pdf') }),
      /outside/,
    );
    expectRefused(
      await compress({ inputs: input, save_to: path.join(allowed, 'link.pdf') }),
      /not a regular file/,
    );
    // The file the symlink points at is untouched.
    expect((await readFile(path.join(outside, 'secret.pdf'))).equals(await readFile(scan))).toBe(true);
    expect(await jobCount()).toBe(before);
  });
});
