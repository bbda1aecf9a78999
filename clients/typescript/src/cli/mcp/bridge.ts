// `quirectl mcp`: the server's MCP tool set (its /mcp endpoint, reached with the official SDK
// client and the CLI's key) offered over stdio, with local files added: an input may be a `path`
// inside an allowed directory (uploaded with tus first), and `save_to` writes the result to one.
// The tools themselves are the server's, so both transports offer the same set (docs/agents.md).
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Quire } from '../../client.js';
import { AllowedDirs, PathRefused } from './local-files.js';

/** Tools whose answer may carry a result to save locally. */
const SAVES = (name: string) => name.startsWith('run_') || name === 'wait_for_job' || name === 'get_result';

const localPath = {
  type: 'string',
  description: 'A local file inside a directory quirectl mcp was started with (--allow); uploaded first.',
};
const saveTo = {
  type: 'string',
  description:
    'A local path inside an allowed directory to write the result to once the job has succeeded (e.g. beside the input).',
};

/** The server's tool with the local additions: `path` inputs and `save_to`. */
export function localTool(tool: Tool): Tool {
  const schema = structuredClone(tool.inputSchema) as Tool['inputSchema'] & {
    properties: Record<string, Record<string, unknown>>;
  };
  const items = schema.properties?.inputs?.items as
    | { properties?: Record<string, unknown>; description?: string }
    | undefined;
  if (items?.properties) {
    items.properties.path = localPath;
    items.description = `${items.description ?? ''} Locally: {"path": "…"} for a file in an allowed directory.`;
  }
  if (SAVES(tool.name)) schema.properties.save_to = saveTo;
  return { ...tool, inputSchema: schema };
}

type Args = Record<string, unknown>;
/** A run, wait or get_result answer of the server (src/http/mcp/job-results.ts). */
type Answer = Record<string, unknown> & { result?: { download_url?: unknown }; download_url?: unknown };

async function remoteArgs(args: Args, allowed: AllowedDirs, quire: Quire): Promise<Args> {
  const { save_to: _saveTo, ...rest } = args;
  if (!Array.isArray(rest.inputs)) return rest;
  const given = rest.inputs as Array<Record<string, unknown>>;
  // Every path is checked before the first upload: a refusal sends nothing to the server.
  const files = await Promise.all(
    given.map((input) => (typeof input.path === 'string' ? allowed.readable(input.path) : undefined)),
  );
  const inputs = [];
  for (const [index, input] of given.entries()) {
    const file = files[index];
    inputs.push(
      file === undefined
        ? input
        : { upload_id: (await quire.uploads.upload(file, { name: path.basename(file) })).id },
    );
  }
  return { ...rest, inputs };
}

/** Writes the result named in a remote answer to `target` (already checked), through O_NOFOLLOW. */
async function saveResult(answer: Answer, target: string): Promise<boolean> {
  const url: unknown = answer.result?.download_url ?? answer.download_url;
  if (typeof url !== 'string') return false;
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`the result download answered ${response.status}`);
  const handle = await AllowedDirs.openForWrite(target);
  try {
    await pipeline(Readable.fromWeb(response.body as never), handle.createWriteStream());
  } finally {
    await handle.close().catch(() => undefined);
  }
  return true;
}

function refused(error: PathRefused): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `path_refused: ${error.message}` }],
    structuredContent: { error: { code: 'path_refused', detail: error.message } },
  };
}

export interface BridgeOptions {
  url: string;
  apiKey: string;
  quire: Quire;
  allowed: AllowedDirs;
}

/** Connects to the server's /mcp and serves the same tools on stdin/stdout until stdin closes. */
export async function runBridge({ url, apiKey, quire, allowed }: BridgeOptions): Promise<void> {
  const remote = new Client({ name: 'quirectl', version: '0.1.0' });
  await remote.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  const server = new Server(
    { name: 'quire-local', version: '0.1.0' },
    { capabilities: { tools: {} }, instructions: remote.getInstructions() ?? '' },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await remote.listTools()).tools.map(localTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Args;
    const token = request.params._meta?.progressToken;
    try {
      const target = typeof args.save_to === 'string' ? await allowed.writable(args.save_to) : undefined;
      const forwarded = await remoteArgs(args, allowed, quire);
      const waitS = typeof args.wait_seconds === 'number' ? args.wait_seconds : 120;
      const result = (await remote.callTool({ name: request.params.name, arguments: forwarded }, undefined, {
        signal: extra.signal,
        timeout: (waitS + 60) * 1000,
        resetTimeoutOnProgress: true,
        ...(token === undefined
          ? {}
          : {
              onprogress: (p) =>
                void extra.sendNotification({
                  method: 'notifications/progress',
                  params: { ...p, progressToken: token },
                }),
            }),
      })) as CallToolResult;
      const answer = result.structuredContent as Answer | undefined;
      if (target && !result.isError && answer && (await saveResult(answer, target))) {
        answer.saved_to = target;
        return {
          ...result,
          content: [{ type: 'text', text: JSON.stringify(answer, null, 2) }],
          structuredContent: answer,
        };
      }
      return result;
    } catch (error) {
      if (error instanceof PathRefused) return refused(error);
      throw error;
    }
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    // The SDK's stdio transport does not notice the end of stdin: the MCP client went away.
    process.stdin.once('end', resolve);
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await remote.close();
}
