// POST /mcp: the MCP server over streamable HTTP (MCP 2025-06-18 "Transports"), stateless: each
// request gets its own server and transport, so nothing is kept per session and there is no session
// count to bound. The caller's key is checked by the app's auth hook like any API route (401/403
// problem+json), and every tool acts through the public API with that same key (public-api.ts).

import type { OutgoingHttpHeaders } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { callTool } from './calls.js';
import { progressReporter } from './job-results.js';
import { PublicApi } from './public-api.js';
import { mcpTools } from './tool-set.js';

const SERVER_INFO = { name: 'quire', version: '1.0.0' };
const INSTRUCTIONS =
  'Quire processes PDFs as jobs. Inputs are uploads (start_upload, then the upload_id) or file_url links; run_<tool> creates a job, waits for it with progress and returns a temporary download link. list_tools and describe_tool show the options.';

/**
 * The low-level `Server` rather than `McpServer`: tool schemas come from the catalogue as JSON Schema
 * at each request, which McpServer's zod-typed registration cannot take.
 */
function buildServer(api: PublicApi): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcpTools((await api.catalog()).data),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    const send = async (progress: number, message: string) => {
      if (token === undefined) return;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, total: 100, message },
      });
    };
    return callTool(request.params.name, request.params.arguments ?? {}, {
      api,
      signal: extra.signal,
      report: progressReporter(send),
    });
  });
  return server;
}

/** The caller's credentials as it sent them: the tools call the API with exactly these. */
function credentials(request: FastifyRequest): Record<string, string> {
  const { authorization, 'x-api-key': apiKey } = request.headers;
  if (typeof authorization === 'string') return { authorization };
  return typeof apiKey === 'string' ? { 'x-api-key': apiKey } : {};
}

export function registerMcpRoute(app: FastifyInstance, deps: AppDeps): void {
  if (!deps.config.http.mcpEnabled) return;
  app.post('/mcp', {
    // Any valid key may talk MCP; each tool then needs the scope of the API route it calls.
    config: { scope: 'any_key' },
    handler: async (request, reply) => {
      const base = deps.config.http.publicBaseUrl || `${request.protocol}://${request.host}`;
      const server = buildServer(new PublicApi(app, credentials(request), base));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      reply.hijack();
      // Headers set before the hijack (X-Request-Id, RateLimit) would otherwise be lost.
      for (const [name, value] of Object.entries(reply.getHeaders() as OutgoingHttpHeaders))
        if (value !== undefined) reply.raw.setHeader(name, value);
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
}
