// Raw HTTP/1.1 over node:net for hostile-input tests: bytes go out exactly as written (fetch would
// fix up framing, headers and bodies), and the answer is parsed by hand.
import net from 'node:net';
import { expect } from 'vitest';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `bytes` (optionally then stops sending without closing) and reads the answer until close. */
export function rawExchange(
  baseUrl: string,
  bytes: Buffer | string,
  options: { timeoutMs?: number } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    const settle = () => {
      const parsed = parseResponse(Buffer.concat(chunks));
      if (!parsed) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve(parsed);
      return true;
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      settle();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!settle()) {
        clearTimeout(timer);
        reject(new Error(`connection closed without a complete answer: ${Buffer.concat(chunks)}`));
      }
    });
    socket.write(bytes);
  });
}

/** One complete response from the front of `data`, or undefined while more is needed. */
export function parseResponse(data: Buffer): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const body = dechunk(rest);
    if (body === undefined) return undefined;
    return { status: Number(statusLine!.split(' ')[1]), headers, body: body.toString('utf8') };
  }
  const length = Number(headers['content-length'] ?? 0);
  if (rest.length < length) return undefined;
  return {
    status: Number(statusLine!.split(' ')[1]),
    headers,
    body: rest.subarray(0, length).toString('utf8'),
  };
}

function dechunk(data: Buffer): Buffer | undefined {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(out);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** A request head with CRLFs; `headers` are written in order, exactly as given. */
export function head(requestLine: string, headers: [string, string][]): string {
  return `${requestLine}\r\n${headers.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

/** Asserts the answer is an RFC 9457 problem with `code` and `status`; returns the document. */
export function expectProblem(response: RawResponse, status: number, code: string): Record<string, unknown> {
  expect(
    { status: response.status, contentType: response.headers['content-type'] },
    response.body.slice(0, 500),
  ).toEqual({ status, contentType: 'application/problem+json; charset=utf-8' });
  const problem = JSON.parse(response.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, code });
  expect(problem.type).toBe(`https://quire.dev/errors/${code.replaceAll('_', '-')}`);
  return problem;
}

/** A multipart body from parts given as raw header blocks and contents, with the closing boundary. */
export function multipart(boundary: string, parts: { headers: string; body: string | Buffer }[]): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    pieces.push(Buffer.from(`--${boundary}\r\n${part.headers}\r\n\r\n`, 'latin1'));
    pieces.push(Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

/** A form-data text part header block. */
export const field = (name: string, type?: string) =>
  `Content-Disposition: form-data; name="${name}"${type ? `\r\nContent-Type: ${type}` : ''}`;
/** A form-data file part header block. */
export const filePart = (name: string, filename: string, type = 'application/pdf') =>
  `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}`;
