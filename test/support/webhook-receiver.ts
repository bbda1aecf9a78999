// A real webhook receiver on loopback for the tests: records every request with its exact bytes and
// verifies it with the Standard Webhooks reference library (not our code), answering as told.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  id: string;
  timestamp: string;
  signature: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Whether the reference library accepted it with one of `secrets` at arrival. */
  verified: boolean;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Hold the response this long first (a slow receiver). */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** Secrets the reference verifier accepts; set after registering the endpoint. */
  secrets: string[];
  /** Decides each answer; the argument counts requests from 1. */
  answer: (n: number, delivery: ReceivedDelivery) => Answer;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    secrets: [],
    answer: () => ({ status: 200 }),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`receiver got ${receiver.received.length} deliveries, wanted ${count}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return receiver.received.slice(0, count);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const header = (name: string) => String(request.headers[name] ?? '');
    const delivery: ReceivedDelivery = {
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      headers: request.headers,
      body,
      verified: receiver.secrets.some((secret) => verifies(secret, body, request.headers)),
      at: Date.now(),
    };
    receiver.received.push(delivery);
    const answer = receiver.answer(receiver.received.length, delivery);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (response.destroyed) return;
    response.writeHead(answer.status, answer.headers ?? {});
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}

export function verifies(secret: string, body: Buffer, headers: http.IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}
