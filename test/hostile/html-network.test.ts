// html-to-pdf's engine against pages that try to reach the host or read its files: WebRTC
// STUN/TURN, WebTransport, WebSocket, fetch, sendBeacon, DNS prefetch and preconnect to loopback
// listeners, which must see no packet and no connection; file:// images and frames, whose content
// must not appear.
import dgram from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChromium, type PrintOptions } from '../../src/engines/chromium/chromium.js';
import { pageText } from '../support/pdf.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-html-'));
const VISIBLE = 'Printed page Bilby4';
const SECRET = 'HostSecret9';
const secretFile = path.join(root, 'secret.txt');

const chromium = createChromium({
  size: 1,
  recycleAfter: 1000,
  workRoot: path.join(root, 'pools'),
  timeoutMs: 60_000,
});

let udp: dgram.Socket;
let tcp: net.Server;
let udpPort = 0;
let tcpPort = 0;
const datagrams: Buffer[] = [];
const connections: string[] = [];

beforeAll(async () => {
  writeFileSync(secretFile, `${SECRET}\n`);
  udp = dgram.createSocket('udp4');
  udp.on('message', (m) => datagrams.push(m));
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
  udpPort = udp.address().port;
  tcp = net.createServer((socket) => {
    connections.push(socket.remoteAddress ?? '?');
    socket.destroy();
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  tcpPort = (tcp.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await chromium.close();
  rmSync(root, { recursive: true, force: true });
  udp.close();
  await new Promise<void>((r) => tcp.close(() => r()));
});

beforeEach(() => {
  datagrams.length = 0;
  connections.length = 0;
});

const PRINT: PrintOptions = {
  pageSize: 'a4',
  landscape: false,
  marginMm: 10,
  printBackground: true,
  waitMs: 1500,
};
let counter = 0;

/** Prints `body` (after the visible marker) and returns the PDF's path. */
async function print(body: string, head = ''): Promise<string> {
  const site = path.join(root, `site-${counter++}`);
  mkdirSync(site);
  writeFileSync(
    path.join(site, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8">${head}</head><body><h1>${VISIBLE}</h1>${body}</body></html>`,
  );
  const output = path.join(root, `out-${counter}.pdf`);
  await chromium.htmlToPdf(site, 'index.html', output, PRINT, { workDir: root });
  expect(pageText(output)).toContain(VISIBLE);
  return output;
}

function expectSilence(): void {
  expect(datagrams).toEqual([]);
  expect(connections).toEqual([]);
}

describe('network from the page', () => {
  it('WebRTC STUN/TURN to loopback sends no datagram and opens no connection', async () => {
    await print(`<script>
      const pc = new RTCPeerConnection({ iceServers: [
        { urls: 'stun:127.0.0.1:${udpPort}' },
        { urls: 'turn:127.0.0.1:${udpPort}?transport=udp', username: 'u', credential: 'p' },
        { urls: 'turn:127.0.0.1:${tcpPort}?transport=tcp', username: 'u', credential: 'p' } ] });
      pc.createDataChannel('x');
      pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {});
    </script>`);
    expectSilence();
  }, 120_000);

  it('WebTransport to a loopback UDP port sends no datagram', async () => {
    await print(
      `<script>try { new WebTransport('https://127.0.0.1:${udpPort}/wt').ready.catch(() => {}); } catch {}</script>`,
    );
    expectSilence();
  }, 120_000);

  it('fetch, WebSocket and sendBeacon to a loopback port open no connection', async () => {
    await print(`<script>
      fetch('http://127.0.0.1:${tcpPort}/fetch', { mode: 'no-cors' }).catch(() => {});
      try { new WebSocket('ws://127.0.0.1:${tcpPort}/ws'); } catch {}
      navigator.sendBeacon('http://127.0.0.1:${tcpPort}/beacon', 'x');
    </script>`);
    expectSilence();
  }, 120_000);

  it('dns-prefetch and preconnect to loopback open no connection', async () => {
    await print(
      '<p>links</p>',
      `<link rel="dns-prefetch" href="//127.0.0.1:${tcpPort}"><link rel="preconnect" href="http://127.0.0.1:${tcpPort}">
       <link rel="preconnect" href="http://localhost:${tcpPort}" crossorigin>`,
    );
    expectSilence();
  }, 120_000);
});

describe('files of the host', () => {
  it('an <img> and an <iframe> of file:///etc/passwd show none of it', async () => {
    const pdf = await print(
      `<img src="file:///etc/passwd"><iframe src="file:///etc/passwd" width="600" height="300"></iframe>`,
    );
    expect(pageText(pdf)).not.toContain('root:x:0');
  }, 120_000);

  it('an iframe and a fetch of a host file show none of it', async () => {
    const pdf =
      await print(`<iframe src="file://${secretFile}" width="600" height="200"></iframe><p id="o"></p>
      <script>fetch('file://${secretFile}').then((r) => r.text()).then((t) => { o.textContent = t; }).catch(() => {});</script>`);
    expect(pageText(pdf)).not.toContain(SECRET);
  }, 120_000);
});
