// The bench client's multipart body (bench/support/multipart.ts), sent over real HTTP to Fastify's
// multipart parser (the one the API uses): every byte arrives, in order, under the declared length,
// although the two chunk buffers are reused while the socket is still busy.
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_BYTES, multipartBody } from '../../bench/support/multipart.js';
import { MERGE_INPUTS } from '../../bench/support/paths.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Received {
  fields: Record<string, string>;
  files: { field: string; filename: string; sha256: string }[];
}

describe('bench multipart body', () => {
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    app = Fastify();
    await app.register(multipart, { limits: { fileSize: 16 * 1024 * 1024, files: 20 } });
    app.post('/', async (request): Promise<Received> => {
      const received: Received = { fields: {}, files: [] };
      for await (const part of request.parts()) {
        if (part.type === 'field') received.fields[part.fieldname] = String(part.value);
        else
          received.files.push({
            field: part.fieldname,
            filename: part.filename,
            sha256: sha256(await part.toBuffer()),
          });
      }
      return received;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/`;
  });

  afterAll(() => app.close());

  it('delivers every field and file byte for byte under the Content-Length it declared', async () => {
    const body = multipartBody({ tool: 'merge', options: '{"bookmarks":"none"}' }, 'file', MERGE_INPUTS);
    const buffers: [Buffer, Buffer] = [Buffer.alloc(CHUNK_BYTES), Buffer.alloc(CHUNK_BYTES)];
    const answer = await new Promise<{ status: number; json: Received }>((resolve, reject) => {
      const request = http.request(url, {
        method: 'POST',
        headers: { 'content-type': body.contentType, 'content-length': body.contentLength },
      });
      request.once('error', reject).once('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () =>
          resolve({ status: response.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      });
      body.writeTo(request, buffers).then(() => request.end(), reject);
    });

    expect(answer.status).toBe(200);
    expect(answer.json.fields).toEqual({ tool: 'merge', options: '{"bookmarks":"none"}' });
    expect(answer.json.files).toEqual(
      MERGE_INPUTS.map((file) => ({
        field: 'file',
        filename: path.basename(file),
        sha256: sha256(readFileSync(file)),
      })),
    );
  });

  it('fails the body when a file changed size after it was framed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-multipart-'));
    try {
      const file = path.join(dir, 'grows.pdf');
      copyFileSync(MERGE_INPUTS[0]!, file);
      const body = multipartBody({}, 'file', [file]);
      appendFileSync(file, 'more');
      const sink = {
        write: (_chunk: Buffer | string, done: () => void) => {
          setImmediate(done);
          return true;
        },
      };
      await expect(
        body.writeTo(sink, [Buffer.alloc(CHUNK_BYTES), Buffer.alloc(CHUNK_BYTES)]),
      ).rejects.toThrow(/changed size/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
