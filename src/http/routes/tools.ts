// GET /api/v1/tools (contract §3): the catalogue as published, straight from the tool definitions.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';

export function registerToolRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/api/v1/tools', {
    config: { authenticated: true },
    schema: {
      tags: ['tools'],
      summary: 'List the tools with their option schemas and availability',
      security: [{ bearerAuth: [] }],
    },
    handler: async () => ({
      object: 'list',
      data: deps.catalog.list().map(({ tool, available, reason }) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputs: {
          min_files: tool.inputs.minFiles,
          max_files:
            tool.inputs.maxFiles === 'plan' ? deps.config.limits.uploadMaxFiles : tool.inputs.maxFiles,
          accepts: tool.inputs.accepts,
        },
        options_schema: tool.options,
        output: { content_type: tool.output.contentType },
        available,
        ...(reason ? { reason } : {}),
      })),
      limits: {
        max_file_bytes: deps.config.limits.uploadMaxFileBytes,
        max_upload_bytes: deps.config.limits.uploadMaxTotalBytes,
        max_files_per_job: deps.config.limits.uploadMaxFiles,
        max_pages_per_job: deps.config.limits.maxPages,
      },
    }),
  });
}
