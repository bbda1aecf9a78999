// The webhook SSRF guard against IPv6 forms that embed an IPv4 address (issue 14): IPv4-compatible
// (deprecated), NAT64, 6to4 and Teredo are refused on create and on update, over real HTTP; real
// public IPv6 and IPv4 targets stay allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/outbound/address-guard.js';
import { Client } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PUBLIC_URL = 'http://93.184.215.14/quire-hooks';

const refused = [
  ['IPv4-compatible loopback', 'http://[::127.0.0.1]:8080/'],
  ['IPv4-compatible loopback, hex', 'http://[::7f00:1]/'],
  ['IPv4-compatible private', 'http://[::10.0.0.1]/'],
  ['IPv4-compatible metadata address', 'http://[::169.254.169.254]/'],
  ['IPv4-compatible public (deprecated form)', 'http://[::8.8.8.8]/'],
  ['NAT64 well-known prefix, private', 'http://[64:ff9b::10.0.0.1]/'],
  ['NAT64 well-known prefix, loopback', 'http://[64:ff9b::7f00:1]/'],
  ['NAT64 local-use prefix', 'http://[64:ff9b:1::a00:1]/'],
  ['6to4 embedding a private address', 'http://[2002:a00:1::1]/'],
  ['6to4 embedding loopback', 'http://[2002:7f00:1::]/'],
  ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
  ['SIIT IPv4-translated', 'http://[::ffff:0:a00:1]/'],
  ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
  ['documentation prefix', 'http://[2001:db8::1]/'],
  ['site-local (deprecated)', 'http://[fec0::1]/'],
] as const;

function send(client: Client, method: string, path: string, body: unknown) {
  return client.fetch(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('webhook URLs with IPv4 embedded in IPv6', () => {
  let server: TestServer;
  let client: Client;
  let endpointId: string;
  beforeAll(async () => {
    server = await startTestServer({}, { workers: false });
    client = new Client(server.url, (await server.newAccount()).key);
    const created = await send(client, 'POST', '/api/v1/webhooks', { url: PUBLIC_URL, events: ['*'] });
    expect(created.status).toBe(201);
    endpointId = ((await created.json()) as { id: string }).id;
  });
  afterAll(() => server.close());

  it.each(refused)('refuses %s (%s) on create: 400 webhook_url_not_allowed at /url', async (_name, url) => {
    const response = await send(client, 'POST', '/api/v1/webhooks', { url, events: ['*'] });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const problem = (await response.json()) as { code: string; errors: { pointer: string }[] };
    expect(problem.code).toBe('webhook_url_not_allowed');
    expect(problem.errors[0]?.pointer).toBe('/url');
  });

  it.each(refused)('refuses %s (%s) on update, and the endpoint keeps its URL', async (_name, url) => {
    const response = await send(client, 'PATCH', `/api/v1/webhooks/${endpointId}`, { url });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('webhook_url_not_allowed');
    const read = (await (await client.fetch(`/api/v1/webhooks/${endpointId}`)).json()) as { url: string };
    expect(read.url).toBe(PUBLIC_URL);
  });

  it('accepts a public IPv6 address and a 6to4 address embedding a public IPv4 one stays refused', async () => {
    const ok = await send(client, 'POST', '/api/v1/webhooks', {
      url: 'http://[2606:4700::1111]/hooks',
      events: ['*'],
    });
    expect(ok.status).toBe(201);
    // 6to4 is refused whatever it embeds: the relay path is not ours to trust.
    const relay = await send(client, 'POST', '/api/v1/webhooks', {
      url: 'http://[2002:808:808::1]/',
      events: ['*'],
    });
    expect(relay.status).toBe(400);
  });
});

describe('isPublicAddress, the check every delivery connection runs too', () => {
  it.each([
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::a00:1', false],
    ['::', false],
    ['::1', false],
    ['64:ff9b::a00:1', false],
    ['64:ff9b:1::808:808', false],
    ['2002:a00:1::', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['2606:4700::1111', true],
    ['8.8.8.8', true],
    ['::ffff:8.8.8.8', true],
  ] as const)('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
