// The MCP tools: a fixed set for jobs, uploads and the catalogue, and one `run_<tool>` per available
// catalogue tool built from `GET /api/v1/tools` at each `tools/list`, so a new server tool needs no
// MCP change. Annotations follow the MCP spec's ToolAnnotations (2025-06-18 "Tool annotations").
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogTool } from './public-api.js';

/** How long a run tool waits for its job by default, and at most (the client may ask for less). */
export const DEFAULT_WAIT_S = 120;
export const MAX_WAIT_S = 600;

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Creates a job: not read-only, changes nothing that exists; a `file_url` input reaches out. */
const creates = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

const jobId = { type: 'string', description: 'The job id (`job_…`).', pattern: '^job_' };

/** One input: a finished tus upload or a URL the worker fetches (docs/api.md §2, §12). */
export const inputItem = {
  type: 'object',
  description: 'One input file: `{"upload_id": "upl_…"}` (see start_upload) or `{"file_url": "https://…"}`.',
  properties: {
    upload_id: { type: 'string', pattern: '^upl_', description: 'A finished upload from start_upload.' },
    file_url: {
      type: 'string',
      pattern: '^https?://',
      description: 'A public http(s) URL the worker fetches.',
    },
  },
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
};

const waitSeconds = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_WAIT_S,
  default: DEFAULT_WAIT_S,
  description:
    'How long to wait for the job to end, sending progress notifications; 0 returns the queued job at once. A job still running afterwards is returned as it is (use wait_for_job).',
};

const metadata = {
  type: 'object',
  description: 'Up to 16 string pairs shown on the job (never interpreted).',
  additionalProperties: { type: 'string' },
};

/** `max` is left out where the plan decides (steps and recipes): the API answers too_many_files. */
function inputs(min: number, max?: number) {
  return {
    type: 'array',
    items: inputItem,
    minItems: min,
    ...(max === undefined ? {} : { maxItems: max }),
    description: 'The input files, in order.',
  };
}

/** The MCP name of a catalogue tool: `run_` and the name with `-` as `_` (`run_extract_text`). */
export function runToolName(tool: string): string {
  return `run_${tool.replaceAll('-', '_')}`;
}

const resultNote =
  'Returns the job; once it has succeeded, a temporary download link for the result, and a small text or JSON result inline.';

function runTool(tool: CatalogTool): Tool {
  return {
    name: runToolName(tool.name),
    title: tool.title,
    description: `${tool.description} (Quire tool \`${tool.name}\`; takes ${tool.inputs.accepts.join(', ')}.) ${resultNote}`,
    inputSchema: {
      type: 'object',
      properties: {
        inputs: inputs(tool.inputs.min_files, tool.inputs.max_files),
        options: tool.options_schema,
        metadata,
        wait_seconds: waitSeconds,
      },
      required: ['inputs'],
      additionalProperties: false,
    },
    annotations: { title: tool.title, ...creates },
  };
}

function catalogueTools(names: string[]): Tool[] {
  return [
    {
      name: 'list_tools',
      title: 'List the PDF tools',
      description:
        'The server’s tools (name, title, what they take, availability) and the calling key’s limits.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { title: 'List the PDF tools', ...readOnly },
    },
    {
      name: 'describe_tool',
      title: 'Describe a tool',
      description: 'One tool’s inputs, output type and options as JSON Schema.',
      inputSchema: {
        type: 'object',
        properties: { tool: { type: 'string', enum: names, description: 'A tool name from list_tools.' } },
        required: ['tool'],
        additionalProperties: false,
      },
      annotations: { title: 'Describe a tool', ...readOnly },
    },
  ];
}

function runTools(names: string[]): Tool[] {
  return [
    {
      name: 'start_upload',
      title: 'Start a resumable upload',
      description:
        'Creates a tus 1.0 upload of `size` bytes and returns its URL and `upload_id`. Send the bytes with PATCH requests (headers `Tus-Resumable: 1.0.0`, `Upload-Offset`, `Content-Type: application/offset+octet-stream` and your API key), then name the `upload_id` in a run tool’s `inputs`. Any tus client resumes after a drop.',
      inputSchema: {
        type: 'object',
        properties: {
          filename: {
            type: 'string',
            minLength: 1,
            maxLength: 200,
            description: 'The file’s name, for display.',
          },
          size: { type: 'integer', minimum: 1, description: 'The whole file’s size in bytes.' },
        },
        required: ['filename', 'size'],
        additionalProperties: false,
      },
      annotations: { title: 'Start a resumable upload', ...creates, openWorldHint: false },
    },
    {
      name: 'run_steps',
      title: 'Run a chain of steps',
      description: `Runs up to 10 tools in order, each on the output of the one before, as one job. ${resultNote}`,
      inputSchema: {
        type: 'object',
        properties: {
          steps: {
            type: 'array',
            minItems: 1,
            maxItems: 10,
            items: {
              type: 'object',
              properties: {
                tool: { type: 'string', enum: names },
                options: { type: 'object', description: 'The tool’s options (describe_tool).' },
              },
              required: ['tool'],
              additionalProperties: false,
            },
          },
          inputs: inputs(1),
          metadata,
          wait_seconds: waitSeconds,
        },
        required: ['steps', 'inputs'],
        additionalProperties: false,
      },
      annotations: { title: 'Run a chain of steps', ...creates },
    },
    {
      name: 'run_recipe',
      title: 'Run a saved recipe',
      description: `Runs a saved recipe (its id, its name, or \`name@version\`) on the inputs as one job. ${resultNote}`,
      inputSchema: {
        type: 'object',
        properties: {
          recipe: { type: 'string', minLength: 1, description: 'A recipe id, name, or `name@version`.' },
          inputs: inputs(1),
          metadata,
          wait_seconds: waitSeconds,
        },
        required: ['recipe', 'inputs'],
        additionalProperties: false,
      },
      annotations: { title: 'Run a saved recipe', ...creates },
    },
  ];
}

const jobIdOnly: Tool['inputSchema'] = {
  type: 'object',
  properties: { job_id: jobId },
  required: ['job_id'],
  additionalProperties: false,
};

function jobTools(): Tool[] {
  return [
    {
      name: 'get_job',
      title: 'Read a job',
      description: 'A job as it is now: status, progress, error or result facts.',
      inputSchema: jobIdOnly,
      annotations: { title: 'Read a job', ...readOnly },
    },
    {
      name: 'wait_for_job',
      title: 'Wait for a job',
      description: `Waits for a job to end, sending progress notifications. ${resultNote}`,
      inputSchema: {
        type: 'object',
        properties: { job_id: jobId, wait_seconds: waitSeconds },
        required: ['job_id'],
        additionalProperties: false,
      },
      annotations: { title: 'Wait for a job', ...readOnly },
    },
    {
      name: 'cancel_job',
      title: 'Cancel a job',
      description: 'Cancels a queued or running job; its work is lost.',
      inputSchema: jobIdOnly,
      annotations: {
        title: 'Cancel a job',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    {
      name: 'get_result',
      title: 'Get a job’s result',
      description:
        'A temporary download link for a succeeded job’s result (anyone holding it can download until it expires), and the result itself when it is small text or JSON.',
      inputSchema: jobIdOnly,
      annotations: { title: 'Get a job’s result', ...readOnly },
    },
  ];
}

function fixedTools(names: string[]): Tool[] {
  return [...catalogueTools(names), ...runTools(names), ...jobTools()];
}

/** Every MCP tool for this catalogue: the fixed ones, then one per available tool. */
export function mcpTools(catalog: CatalogTool[]): Tool[] {
  const available = catalog.filter((tool) => tool.available);
  return [...fixedTools(available.map((tool) => tool.name)), ...available.map(runTool)];
}

/** The names of the fixed tools (docs/agents.md lists them; a test compares). */
export const FIXED_TOOL_NAMES = fixedTools([]).map((tool) => tool.name);
