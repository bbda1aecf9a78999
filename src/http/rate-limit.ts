// Authentication plus the two request limits (docs/api.md §1, §5): failed authentications per client
// IP, checked before any key is looked at, and requests per account by plan, with the IETF
// RateLimit-Policy / RateLimit headers on every keyed /api/v1 response.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { serializeList } from 'structured-headers';
import { authenticate } from '../auth/authenticate.js';
import { type Plan, planFor } from '../config/plans.js';
import { QuireError } from '../errors/quire-error.js';
import { rfc3339 } from '../model/job-view.js';
import type { RateDecision, RatePolicy } from '../store/types.js';
import type { AppDeps } from './deps.js';

const POLICY_NAME = 'default';
const AUTH_FAILURE_WINDOW_MS = 60_000;

/** Authenticates a keyed request and counts it against its account's plan; throws 401 or 429. */
export async function authenticateAndLimit(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
): Promise<void> {
  const { rateLimits } = deps.db;
  const ipBucket = `auth-failures:${request.ip}`;
  const ipPolicy: RatePolicy = { quota: deps.config.authFailuresPerMinute, windowMs: AUTH_FAILURE_WINDOW_MS };
  // Refused before the key is checked, so guessing keys costs the guesser, not our hash work.
  const ipState = await rateLimits.peek(ipBucket, ipPolicy);
  if (!ipState.allowed) throw authFailuresExceeded(ipState, ipPolicy);
  try {
    request.auth = await authenticate(request, deps.db.accounts, deps.keys.apiKeyPepper);
  } catch (error) {
    if (error instanceof QuireError && error.status === 401) await rateLimits.consume(ipBucket, ipPolicy);
    throw error;
  }
  const plan = planFor(deps.config.plans, request.auth.plan);
  const policy = planPolicy(plan);
  const decision = await rateLimits.consume(`account:${request.auth.accountId}`, policy);
  reply.header('RateLimit-Policy', policyHeader(plan));
  // The same bytes serializeList writes for a token with two integer parameters, without building
  // the Map it takes on every request.
  reply.header('RateLimit', `"${POLICY_NAME}";r=${decision.remaining};t=${seconds(decision.resetMs)}`);
  if (!decision.allowed) throw accountLimitExceeded(decision, plan, deps.config.plans);
}

/** RateLimit-Policy per plan, built once: plans are fixed for the life of the process. */
const policyHeaders = new WeakMap<Plan, string>();

function policyHeader(plan: Plan): string {
  let header = policyHeaders.get(plan);
  if (header === undefined) {
    header = serializeList([
      [
        POLICY_NAME,
        new Map([
          ['q', plan.requestsPerWindow],
          ['w', plan.windowSeconds],
        ]),
      ],
    ]);
    policyHeaders.set(plan, header);
  }
  return header;
}

export function planPolicy(plan: Plan): RatePolicy {
  return { quota: plan.requestsPerWindow, windowMs: plan.windowSeconds * 1000 };
}

/** Whole seconds, rounded up so that waiting that long is always enough. */
function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

function accountLimitExceeded(
  decision: RateDecision,
  plan: Plan,
  plans: Readonly<Record<string, Plan>>,
): QuireError {
  const retryAfter = Math.max(1, seconds(decision.retryAfterMs));
  const higher = higherPlan(plan, plans);
  const raise = higher
    ? ` A higher plan raises it: "${higher.name}" allows ${higher.requestsPerWindow} per ${higher.windowSeconds} s.`
    : '';
  return new QuireError(
    'rate_limited',
    `The "${plan.name}" plan allows ${plan.requestsPerWindow} requests per ${plan.windowSeconds} s; try again in ${retryAfter} s.${raise}`,
    {
      headers: { 'Retry-After': String(retryAfter) },
      extras: {
        limit: 'requests',
        policy: POLICY_NAME,
        plan: plan.name,
        quota: plan.requestsPerWindow,
        window_seconds: plan.windowSeconds,
        retry_after_seconds: retryAfter,
        resets_at: rfc3339(Date.now() + decision.resetMs),
        ...(higher ? { higher_plan: higher.name } : {}),
      },
    },
  );
}

function authFailuresExceeded(decision: RateDecision, policy: RatePolicy): QuireError {
  const retryAfter = Math.max(1, seconds(decision.retryAfterMs));
  return new QuireError(
    'rate_limited',
    `Too many failed authentications from this address (${policy.quota} per minute); try again in ${retryAfter} s.`,
    {
      headers: { 'Retry-After': String(retryAfter) },
      extras: {
        limit: 'failed_authentication',
        quota: policy.quota,
        window_seconds: policy.windowMs / 1000,
        retry_after_seconds: retryAfter,
        resets_at: rfc3339(Date.now() + decision.resetMs),
      },
    },
  );
}

/** The next plan up by request rate, to name in the 429 (docs/api.md §5: say that a higher plan helps). */
function higherPlan(plan: Plan, plans: Readonly<Record<string, Plan>>): Plan | undefined {
  const rate = (p: Plan) => p.requestsPerWindow / p.windowSeconds;
  return Object.values(plans)
    .filter((p) => rate(p) > rate(plan))
    .sort((a, b) => rate(a) - rate(b))[0];
}
