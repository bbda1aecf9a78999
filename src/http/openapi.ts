// The OpenAPI document, generated from the route schemas and the tool definitions, served at
// /openapi.json and rendered at /docs. Nothing is written by hand, so it cannot drift from the code.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.js';
import { toolListSchema } from './tool-list-schema.js';

export async function registerDocs(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const toolSchemas = Object.fromEntries(
    deps.catalog
      .list()
      .map(({ tool }) => [
        `Options_${tool.name.replaceAll('-', '_')}`,
        JSON.parse(JSON.stringify(tool.options)),
      ]),
  );
  const toolNames = deps.catalog.list().map(({ tool }) => tool.name);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quire API',
        version: '1',
        description: 'Job-based PDF processing. Errors are RFC 9457 problem+json with a stable `code`.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: '`qk_live_…` API key' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
        schemas: toolSchemas,
      },
    },
    transform: ({ schema, url, route }) => {
      // The job upload is read part by part (never buffered), so it has no Fastify body schema;
      // the multipart body is described here for the document only.
      if (url === '/api/v1/jobs' && route.method === 'POST') {
        return {
          url,
          schema: {
            ...schema,
            body: {
              type: 'object',
              required: ['tool', 'file'],
              properties: {
                tool: { type: 'string', enum: toolNames },
                options: {
                  type: 'string',
                  description:
                    'JSON object valid against the tool’s schema (components/schemas/Options_<tool>).',
                },
                metadata: { type: 'string', description: 'JSON object of up to 16 string pairs.' },
                file: { type: 'array', items: { type: 'string', format: 'binary' } },
              },
            },
          },
        };
      }
      // The catalogue body is built by hand in routes/tools.ts (no serializer schema, so new
      // fields pass through); its published shape lives in tool-list-schema.ts.
      if (url === '/api/v1/tools' && route.method === 'GET') {
        return { url, schema: { ...schema, response: { 200: toolListSchema } } };
      }
      return { schema, url };
    },
    hideUntagged: false,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
