// The server secret and the keys derived from it: the API-key pepper, the download-link key and the
// key that encrypts webhook secrets at rest.
// Every API process of one deployment must share it (QUIRE_SECRET), or links and keys stop verifying.
import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ServerKeys {
  /** HMAC key for API-key secrets at rest (docs/api.md §1). */
  apiKeyPepper: Buffer;
  /** HMAC key for local download-link tokens (docs/api.md §2). */
  fileTokenKey: Buffer;
  /** AES-256-GCM key for webhook signing secrets at rest (src/webhooks/secrets.ts). */
  webhookSecretKey: Buffer;
}

/** Uses `configured` when set; otherwise reads or creates `<dataDir>/server-secret` (mode 0600). */
export function loadServerKeys(configured: string, dataDir: string): ServerKeys {
  const secret = configured !== '' ? Buffer.from(configured, 'utf8') : readOrCreateSecretFile(dataDir);
  // Separate keys per purpose so a token can never double as a key hash and vice versa.
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'quire', info, 32));
  return {
    apiKeyPepper: derive('api-key-pepper'),
    fileTokenKey: derive('file-token'),
    webhookSecretKey: derive('webhook-secret-encryption'),
  };
}

function readOrCreateSecretFile(dataDir: string): Buffer {
  const file = path.join(dataDir, 'server-secret');
  mkdirSync(dataDir, { recursive: true });
  try {
    // 'wx' fails if the file exists, so two processes starting at once keep the first one's secret.
    writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters`);
  return Buffer.from(secret, 'utf8');
}
