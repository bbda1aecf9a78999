// /api/v1/job-webhook-secret (scope `webhooks:manage`, docs/api.md §6): the account's secret that
// signs per-job `webhook_url` deliveries — made on first use, readable, rotatable with a grace period.
import type { FastifyInstance } from 'fastify';
import { REDACTED } from '../../model/redact.js';
import { jobCallbackSecret, rotateJobCallbackSecret } from '../../webhooks/job-callback.js';
import type { AppDeps } from '../deps.js';
import { webhookSchemas } from './webhook-schemas.js';
import { refuseNullGracePeriod } from './webhooks.js';

export function registerJobWebhookSecretRoutes(app: FastifyInstance, deps: AppDeps): void {
  const key = deps.keys.webhookSecretKey;
  app.get('/api/v1/job-webhook-secret', {
    config: { scope: 'webhooks:manage' },
    schema: webhookSchemas.jobWebhookSecret,
    handler: async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const secret = await jobCallbackSecret(deps.db.webhooks, key, request.auth!.accountId);
      return { object: 'job_webhook_secret', secret };
    },
  });

  app.post<{ Body: { grace_period_seconds?: number } | null }>('/api/v1/job-webhook-secret/rotate', {
    // The replay copy of the answer must not keep the secret.
    config: {
      scope: 'webhooks:manage',
      idempotencyStoredBody: () =>
        Buffer.from(JSON.stringify({ object: 'job_webhook_secret', secret: REDACTED })),
    },
    schema: webhookSchemas.rotateJobWebhookSecret,
    preValidation: refuseNullGracePeriod,
    handler: async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const graceMs =
        (request.body?.grace_period_seconds ?? deps.config.webhooks.rotationGraceMs / 1000) * 1000;
      const secret = await rotateJobCallbackSecret(deps.db.webhooks, key, request.auth!.accountId, graceMs);
      return { object: 'job_webhook_secret', secret };
    },
  });
}
