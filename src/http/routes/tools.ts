// GET /api/v1/tools (docs/api.md §3): the catalogue as published, straight from the tool definitions,
// with the caller's own limits (its plan's, capped by the server-wide settings; docs/api.md §5).
import type { FastifyInstance } from 'fastify';
import { accountLimits } from '../../config/plans.js';
import type { EngineName } from '../../engines/types.js';
import type { AppDeps } from '../deps.js';
import { json, ref } from './common-schemas.js';

function engineInfo(deps: AppDeps, name: EngineName) {
  const status = deps.engineStatus.find((e) => e.name === name);
  return {
    name,
    available: status?.available === true,
    ...(status?.version ? { version: status.version } : {}),
    ...(status?.languages ? { languages: status.languages } : {}),
  };
}

export function registerToolRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/api/v1/tools', {
    // Any valid key: a client needs the catalogue and its own limits whatever it may do.
    config: { scope: 'any_key' },
    schema: {
      operationId: 'listTools',
      tags: ['Tools'],
      summary: 'List the tools',
      description:
        'Every tool with its inputs, options schema, output type and availability on this server, and the calling key’s own limits.',
      responses: { 200: json('The catalogue.', ref('ToolList')) },
    },
    handler: async (request) => {
      const limits = accountLimits(deps.config, request.auth!.plan);
      const { plan } = limits;
      return {
        object: 'list',
        data: deps.catalog.list().map(({ tool, available, reason }) => ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          group: tool.group ?? 'Other',
          keywords: tool.keywords ?? [],
          inputs: {
            min_files: tool.inputs.minFiles,
            max_files:
              tool.inputs.maxFiles === 'plan'
                ? limits.maxFiles
                : Math.min(tool.inputs.maxFiles, limits.maxFiles),
            accepts: tool.inputs.accepts,
          },
          options_schema: tool.options,
          output: { content_type: tool.output.contentType },
          available,
          ...(reason ? { reason } : {}),
          // Which programs do the work, with their versions (and Tesseract's languages): additive
          // to docs/api.md §3, so clients can tell what a server will really run.
          engines: tool.engines.map((name) => engineInfo(deps, name)),
        })),
        limits: {
          plan: plan.name,
          max_file_bytes: limits.maxFileBytes,
          max_upload_bytes: limits.maxTotalBytes,
          max_files_per_job: limits.maxFiles,
          max_pages_per_job: limits.maxPages,
          concurrent_jobs: plan.concurrentJobs,
          requests_per_window: plan.requestsPerWindow,
          window_seconds: plan.windowSeconds,
          result_retention_seconds: Math.floor(limits.resultRetentionMs / 1000),
        },
      };
    },
  });
}
