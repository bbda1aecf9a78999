// /api/v1/webhooks (scope `webhooks:manage`, docs/api.md §6): endpoint management, secret rotation and the
// delivery log. Everything is scoped to the key's account; another account's endpoint is 404.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { QuireError } from '../../errors/quire-error.js';
import { rfc3339 } from '../../model/job-view.js';
import type { WebhookAttempt, WebhookEndpoint, WebhookMessage } from '../../model/webhook.js';
import { urlRefusal } from '../../outbound/address-guard.js';
import { registerEndpoint, rotateEndpointSecret } from '../../webhooks/endpoints.js';
import type { AppDeps } from '../deps.js';
import { webhookSchemas } from './webhook-schemas.js';

type IdParams = { Params: { id: string } };
type EndpointBody = { url: string; events: string[]; description: string };
type UpdateBody = Partial<EndpointBody> & { status?: 'enabled' | 'disabled' };

const manage = { scope: 'webhooks:manage' } as const;
// The secret is in the 201/200 body once; the stored replay copy must not keep it.
const manageWithSecret = { ...manage, idempotencyStoredBody: redactSecret };

export function registerWebhookRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerSecretIssuingRoutes(app, deps);
  registerEndpoints(app, deps);
  registerDeliveries(app, deps);
}

/** The two routes whose answer carries a signing secret (creation and rotation). */
function registerSecretIssuingRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { webhooks } = deps.db;
  const settings = deps.config.webhooks;

  app.post<{ Body: EndpointBody }>('/api/v1/webhooks', {
    config: manageWithSecret,
    schema: webhookSchemas.create,
    handler: async (request, reply) => {
      await checkUrl(request.body.url, settings.allowPrivate);
      const { endpoint, secret } = await registerEndpoint(
        webhooks,
        deps.keys.webhookSecretKey,
        {
          accountId: request.auth!.accountId,
          url: request.body.url,
          description: request.body.description,
          events: request.body.events,
        },
        settings.maxEndpoints,
      );
      return reply
        .code(201)
        .header('Location', `/api/v1/webhooks/${endpoint.id}`)
        .send({ ...endpointView(endpoint), secret });
    },
  });

  app.post<IdParams & { Body: { grace_period_seconds?: number } | null }>(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      config: manageWithSecret,
      schema: webhookSchemas.rotate,
      preValidation: refuseNullGracePeriod,
      handler: async (request) => {
        const graceMs = (request.body?.grace_period_seconds ?? settings.rotationGraceMs / 1000) * 1000;
        const { accountId } = request.auth!;
        const key = deps.keys.webhookSecretKey;
        const rotated = await rotateEndpointSecret(webhooks, key, accountId, request.params.id, graceMs);
        if (!rotated) throw notFound();
        return { ...endpointView(rotated.endpoint), secret: rotated.secret };
      },
    },
  );
}

function registerEndpoints(app: FastifyInstance, deps: AppDeps): void {
  const { webhooks } = deps.db;

  app.get('/api/v1/webhooks', {
    config: manage,
    schema: webhookSchemas.list,
    handler: async (request) => {
      const all = await webhooks.listEndpoints(request.auth!.accountId);
      return { object: 'list', data: all.map(endpointView), has_more: false };
    },
  });

  app.get<IdParams>('/api/v1/webhooks/:id', {
    config: manage,
    schema: webhookSchemas.get,
    handler: async (request) =>
      endpointView(await loadEndpoint(deps, request.auth!.accountId, request.params.id)),
  });

  app.patch<IdParams & { Body: UpdateBody }>('/api/v1/webhooks/:id', {
    config: manage,
    schema: webhookSchemas.update,
    handler: async (request) => {
      const accountId = request.auth!.accountId;
      await loadEndpoint(deps, accountId, request.params.id);
      if (request.body.url !== undefined) await checkUrl(request.body.url, deps.config.webhooks.allowPrivate);
      const updated = await webhooks.updateEndpoint(accountId, request.params.id, request.body);
      if (!updated) throw notFound();
      return endpointView(updated);
    },
  });

  app.delete<IdParams>('/api/v1/webhooks/:id', {
    config: manage,
    schema: webhookSchemas.remove,
    handler: async (request, reply) => {
      if (!(await webhooks.deleteEndpoint(request.auth!.accountId, request.params.id))) throw notFound();
      return reply.code(204).send();
    },
  });
}

function registerDeliveries(app: FastifyInstance, deps: AppDeps): void {
  const { webhooks } = deps.db;

  app.get<IdParams & { Querystring: { limit: number; starting_after?: string } }>(
    '/api/v1/webhooks/:id/deliveries',
    {
      config: manage,
      schema: webhookSchemas.deliveries,
      handler: async (request) => {
        const accountId = request.auth!.accountId;
        await loadEndpoint(deps, accountId, request.params.id);
        const { limit, starting_after: startingAfter } = request.query;
        const page = await webhooks.listMessages(accountId, request.params.id, { limit, startingAfter });
        return { object: 'list', data: page.messages.map(deliveryView), has_more: page.hasMore };
      },
    },
  );

  app.post<{ Params: { id: string; msg_id: string } }>('/api/v1/webhooks/:id/deliveries/:msg_id/retry', {
    config: manage,
    schema: webhookSchemas.retry,
    handler: async (request, reply) => {
      const accountId = request.auth!.accountId;
      const endpoint = await loadEndpoint(deps, accountId, request.params.id);
      if (endpoint.status === 'disabled') {
        throw new QuireError('webhook_endpoint_disabled', 'Re-enable the endpoint (PATCH status) first.');
      }
      const message = await webhooks.retryMessage(accountId, endpoint.id, request.params.msg_id);
      if (!message) throw new QuireError('not_found', 'No delivery with this id for this endpoint.');
      // In-process dispatchers wake on job events; this is not one, so they pick it up at their poll.
      return reply.code(202).send(deliveryView({ ...message, attemptLog: [] }));
    },
  });
}

async function checkUrl(url: string, allowPrivate: boolean): Promise<void> {
  const refusal = await urlRefusal(url, allowPrivate);
  if (refusal) {
    throw new QuireError('webhook_url_not_allowed', `The url ${refusal}.`, {
      errors: [{ pointer: '/url', detail: refusal }],
    });
  }
}

async function loadEndpoint(deps: AppDeps, accountId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await deps.db.webhooks.getEndpoint(accountId, id);
  if (!endpoint) throw notFound();
  return endpoint;
}

function notFound(): QuireError {
  return new QuireError('not_found', 'No webhook endpoint with this id.');
}

function endpointView(endpoint: WebhookEndpoint) {
  const now = Date.now();
  const rotating = endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason ?? undefined,
    // While both secrets sign, so a client can tell when the old one may be dropped.
    previous_secret_expires_at: rotating ? rfc3339(endpoint.previousSecretExpiresAt) : undefined,
    created_at: rfc3339(endpoint.createdAt),
    updated_at: rfc3339(endpoint.updatedAt),
  };
}

function deliveryView(message: WebhookMessage & { attemptLog: WebhookAttempt[] }) {
  return {
    id: message.id,
    object: 'webhook_delivery',
    endpoint: message.endpointId,
    event_type: message.eventType,
    job: message.jobId,
    status: message.status,
    attempt_count: message.attempts,
    next_attempt_at: message.status === 'pending' ? rfc3339(message.nextAttemptAt) : undefined,
    created_at: rfc3339(message.createdAt),
    completed_at: rfc3339(message.completedAt),
    attempts: message.attemptLog.map((a) => ({
      // Whole seconds, as every time in the API (docs/api.md conventions).
      attempted_at: rfc3339(a.attemptedAt),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error_class: a.errorClass,
      response_excerpt: a.responseExcerpt,
    })),
  };
}

function redactSecret(body: Buffer): Buffer {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return body;
  }
  if (typeof parsed.secret !== 'string') return body;
  return Buffer.from(JSON.stringify({ ...parsed, secret: '[redacted]' }));
}

/**
 * `"grace_period_seconds": null` is refused like any other non-integer: the app's validator coerces
 * null to 0 for an integer, which would end the old secret at once, so it is caught before it runs.
 */
export async function refuseNullGracePeriod(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null | undefined;
  if (body && typeof body === 'object' && body.grace_period_seconds === null) {
    throw new QuireError('invalid_request', 'The request is not valid.', {
      errors: [{ pointer: '/grace_period_seconds', detail: 'must be integer' }],
    });
  }
}
