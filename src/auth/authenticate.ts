// Request authentication (docs/api.md §1): Bearer or X-API-Key, constant-time verification, scopes.
import type { FastifyRequest } from 'fastify';
import { QuireError } from '../errors/quire-error.js';
import type { Scope } from '../model/account.js';
import type { AccountStore } from '../store/types.js';
import { parseApiKey, verifyKeySecret } from './api-key.js';

export interface AuthContext {
  accountId: string;
  keyId: string;
  scopes: ReadonlySet<Scope>;
  /** The account's plan name, read per request so a plan change applies at once. */
  plan: string;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="quire"' };

function presentedKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    // A present but non-Bearer Authorization header is a malformed credential, not an absent one.
    return match ? match[1] : '';
  }
  const header = request.headers['x-api-key'];
  return typeof header === 'string' ? header.trim() : undefined;
}

export async function authenticate(
  request: FastifyRequest,
  accounts: AccountStore,
  pepper: Buffer,
  now = Date.now(),
): Promise<AuthContext> {
  const key = presentedKey(request);
  if (key === undefined)
    throw new QuireError('unauthenticated', 'Send an API key as "Authorization: Bearer <key>".', {
      headers: CHALLENGE,
    });
  const parsed = parseApiKey(key);
  if (!parsed) throw new QuireError('unauthenticated', 'The API key is malformed.', { headers: CHALLENGE });

  const found = await accounts.findKey(parsed.keyId);
  const record = found?.key;
  const secretOk = verifyKeySecret(pepper, parsed.secret, record?.secretHash);
  const usable =
    record !== undefined &&
    secretOk &&
    record.mode === parsed.mode &&
    record.revokedAt === null &&
    (record.expiresAt === null || record.expiresAt > now);
  if (!usable || record === undefined) {
    throw new QuireError('invalid_api_key', 'The API key is unknown, revoked or expired.', {
      headers: CHALLENGE,
    });
  }
  return {
    accountId: record.accountId,
    keyId: record.keyId,
    scopes: new Set(record.scopes),
    plan: found?.plan ?? '',
  };
}

export function requireScope(auth: AuthContext, scope: Scope): void {
  if (!auth.scopes.has(scope)) {
    throw new QuireError('insufficient_scope', `This operation needs the "${scope}" scope.`, {
      extras: { required_scope: scope },
    });
  }
}
