// tools/call: checks the arguments against the tool's input schema, then makes the public API
// requests the tool stands for. A refusal of the API becomes an MCP tool error (isError) carrying the
// problem's code, detail, required scope and field pointers, so the agent can correct itself.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import {
  jobAnswer,
  problemSummary,
  problemText,
  type ReportProgress,
  resultOf,
  waitForJob,
} from './job-results.js';
import { ApiProblem, type FormField, type PublicApi } from './public-api.js';
import { DEFAULT_WAIT_S, mcpTools, runToolName } from './tool-set.js';

export interface CallContext {
  api: PublicApi;
  /** Aborted when the MCP client cancels the request or goes away. */
  signal: AbortSignal;
  report: ReportProgress;
}

type Args = Record<string, unknown>;
type InputArg = { upload_id?: string; file_url?: string };

export async function callTool(name: string, args: Args, ctx: CallContext): Promise<CallToolResult> {
  try {
    // Only the tools whose schema or work names catalogue tools read it: one API request less (and
    // one less against the rate limit) for the job and upload tools.
    const catalog = usesCatalog(name) ? await ctx.api.catalog() : { data: [], limits: {} };
    const tool = mcpTools(catalog.data).find((t) => t.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const invalid = argumentErrors(tool, args);
    if (invalid)
      return errorResult(`invalid_arguments:${invalid}`, { code: 'invalid_arguments', detail: invalid });
    if (name.startsWith('run_') && name !== 'run_steps' && name !== 'run_recipe') {
      const entry = catalog.data.find((t) => runToolName(t.name) === name)!;
      const fields: FormField[] = [
        ['tool', entry.name],
        ['options', JSON.stringify(args.options ?? {})],
      ];
      return answer(await runJob(fields, args, ctx));
    }
    return answer(await callFixed(name, args, ctx, catalog));
  } catch (error) {
    if (error instanceof ApiProblem) return errorResult(problemText(error), problemSummary(error));
    throw error;
  }
}

const CATALOG_FREE = new Set([
  'start_upload',
  'run_recipe',
  'get_job',
  'wait_for_job',
  'cancel_job',
  'get_result',
]);

function usesCatalog(name: string): boolean {
  return !CATALOG_FREE.has(name);
}

async function callFixed(
  name: string,
  args: Args,
  ctx: CallContext,
  catalog: Awaited<ReturnType<PublicApi['catalog']>>,
): Promise<Record<string, unknown>> {
  const { api } = ctx;
  switch (name) {
    case 'list_tools':
      return {
        tools: catalog.data.map(({ name: tool, title, inputs, output, available, reason }) => ({
          name: tool,
          mcp_tool: runToolName(tool),
          title,
          inputs,
          output,
          available,
          ...(reason ? { reason } : {}),
        })),
        limits: catalog.limits,
      };
    case 'describe_tool': {
      const { engines: _engines, ...tool } = catalog.data.find(
        (t) => t.name === args.tool,
      ) as unknown as Args;
      return { ...tool, mcp_tool: runToolName(String(args.tool)) };
    }
    case 'start_upload': {
      const upload = await api.createUpload(String(args.filename), Number(args.size));
      return {
        upload_id: upload.id,
        upload_url: upload.url,
        ...(upload.expires ? { expires: upload.expires } : {}),
        protocol: 'tus 1.0.0',
        send_with:
          'PATCH upload_url with Tus-Resumable: 1.0.0, Upload-Offset: <bytes sent so far>, Content-Type: application/offset+octet-stream and your API key; HEAD upload_url tells where to resume.',
      };
    }
    case 'run_steps':
      return runJob([['steps', JSON.stringify(args.steps)]], args, ctx);
    case 'run_recipe':
      return runJob([['recipe', String(args.recipe)]], args, ctx);
    case 'get_job':
      return { job: await api.job(String(args.job_id)) };
    case 'wait_for_job': {
      const job = await api.job(String(args.job_id));
      const seconds = Number(args.wait_seconds ?? DEFAULT_WAIT_S);
      return jobAnswer(api, await waitForJob(api, job, seconds, ctx.signal, ctx.report));
    }
    case 'cancel_job':
      return { job: await api.cancel(String(args.job_id)) };
    case 'get_result': {
      const job = await api.job(String(args.job_id));
      return { job_id: job.id, ...(await resultOf(api, job)) };
    }
    default:
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
}

/** Creates the job from `fields` plus the inputs and metadata, then waits as asked. */
async function runJob(fields: FormField[], args: Args, ctx: CallContext): Promise<Record<string, unknown>> {
  const all: FormField[] = [...fields];
  if (args.metadata !== undefined) all.push(['metadata', JSON.stringify(args.metadata)]);
  for (const input of (args.inputs ?? []) as InputArg[]) {
    if (input.upload_id !== undefined) all.push(['upload_id', input.upload_id]);
    if (input.file_url !== undefined) all.push(['file_url', input.file_url]);
  }
  const created = await ctx.api.createJob(all);
  const seconds = Number(args.wait_seconds ?? DEFAULT_WAIT_S);
  try {
    return jobAnswer(ctx.api, await waitForJob(ctx.api, created, seconds, ctx.signal, ctx.report));
  } catch (error) {
    // The job exists whatever stopped the wait (a key without `jobs:read`, say): the agent gets
    // its id and the reason, not an error that reads as if nothing had been created.
    if (error instanceof ApiProblem) return { job: created, wait_unavailable: problemSummary(error) };
    throw error;
  }
}

/** JSON Schema validation of the arguments (ajv, as the API validates options): pointers, or null. */
function argumentErrors(tool: Tool, args: Args): string | null {
  // strict: false, because the catalogue's option schemas carry annotations such as `examples`.
  const validate = new Ajv({ strict: false, allErrors: true }).compile(tool.inputSchema);
  if (validate(args)) return null;
  return (validate.errors ?? []).map((e) => ` ${e.instancePath || '/'} ${e.message ?? ''}`).join(';');
}

function answer(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

function errorResult(text: string, error: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { error } };
}
