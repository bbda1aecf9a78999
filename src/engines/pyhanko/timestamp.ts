// The time-stamp authority a B-T signature asks, pinned to one address that the SSRF guard approved:
// the driver connects to that address only and never resolves the name itself (no rebinding).
import type { LookupFunction } from 'node:net';
import { QuireError } from '../../errors/quire-error.js';

/** The operator's TSA (QUIRE_SIGN_TSA_URL) and the guarded DNS lookup to reach it with. */
export interface TimestampAuthority {
  url: string;
  /** The webhooks' SSRF guard (guardedLookup), handed in by the composition root. */
  lookup: LookupFunction;
}

/** What driver.py's PinnedTimeStamper connects to. */
export interface PinnedTsa {
  scheme: 'http' | 'https';
  /** For TLS: SNI and certificate verification are against the name, not the address. */
  host: string;
  host_header: string;
  port: number;
  path: string;
  address: string;
}

/**
 * Resolves the TSA's host through the guard at signing time. A literal IP goes through the same
 * lookup (which returns it unchanged), so a private literal is refused like a private name.
 */
export async function pinTsa(tsa: TimestampAuthority): Promise<PinnedTsa> {
  const url = new URL(tsa.url);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const address = await new Promise<string>((resolve, reject) => {
    tsa.lookup(host, { all: false }, (error, answer) => {
      if (error) reject(error);
      else resolve(answer as string);
    });
  }).catch(() => {
    throw new QuireError('timestamp_failed', 'The time-stamp authority host is not reachable or not allowed');
  });
  const https = url.protocol === 'https:';
  return {
    scheme: https ? 'https' : 'http',
    host,
    host_header: url.host,
    port: url.port ? Number(url.port) : https ? 443 : 80,
    path: `${url.pathname}${url.search}`,
    address,
  };
}
