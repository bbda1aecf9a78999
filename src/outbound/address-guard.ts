// The SSRF guard of every outbound connection (webhooks, per-job callbacks, URL imports and exports,
// the TSA; docs/api.md §6): only http(s) to public unicast addresses, checked when a URL is given and
// again on every connection through a DNS lookup that refuses private answers, so a name that
// re-resolves to an internal address between the two checks (DNS rebinding) is still caught.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Thrown by the guarded lookup: a webhook delivery records it as `blocked_address`, a transfer as `forbidden_address`. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'EBLOCKEDADDRESS';
}

/**
 * Only ipaddr.js's `unicast` range is public: everything else it names (loopback, private,
 * uniqueLocal fc00::/7, linkLocal incl. 169.254.169.254, carrierGradeNat 100.64/10, multicast,
 * unspecified, broadcast, reserved, 6to4 2002::/16, Teredo 2001::/32, NAT64 64:ff9b::/96 …) can reach
 * inside a network, whichever IPv4 address they embed. `process`
 * first turns IPv4-mapped IPv6 (::ffff:10.0.0.1) into the IPv4 address it really is.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  return !(parsed.kind() === 'ipv6' && TRANSITION_V6.some((range) => parsed.match(range)));
}

/**
 * IPv6 forms that carry an IPv4 address but that ipaddr.js calls `unicast`: IPv4-compatible
 * ::a.b.c.d (deprecated by RFC 4291 §2.5.5.1; WHATWG turns [::127.0.0.1] into [::7f00:1], and some
 * stacks still route it to the embedded IPv4 address) and the local-use NAT64 prefix of RFC 8215.
 */
const TRANSITION_V6: [ipaddr.IPv6, number][] = [
  ipaddr.IPv6.parseCIDR('::/96'),
  ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
];

/** The URL's host as an address or name: WHATWG parsing already turned `2130706433` into 127.0.0.1. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Why `raw` may not be an outbound URL, or undefined when it may. Resolves names (when it is given). */
export async function urlRefusal(raw: string, allowPrivate: boolean): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  const host = hostOf(url);
  if (host === '') return 'has no host';
  if (allowPrivate) return undefined;
  if (net.isIP(host)) return isPublicAddress(host) ? undefined : 'points to a non-public address';
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    return 'has a host name that does not resolve';
  }
  // Every answer must be public: a mixed answer would let the connection pick the private one.
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address)))
    return 'resolves to a non-public address';
  return undefined;
}

/**
 * A `lookup` for http(s).request that fails the connection when any resolved address is not public.
 * Node calls it for names only; literal IP hosts never reach it, so `sendOutbound` checks those first.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const blocked = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (blocked || addresses.length === 0) {
        return callback(new BlockedAddressError('the host resolves to a non-public address'), '', 0);
      }
      if (options.all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
