// The same node:http client as BenchClient (keep-alive agent, the streamed multipart body with reused
// buffers), pointed at Gotenberg's form routes: one request sends the files and answers the PDF,
// which is drained chunk by chunk and counted.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { CHUNK_BYTES, multipartBody } from './multipart.js';

export class PeerClient {
  private readonly agent = new http.Agent({ keepAlive: true });
  private readonly spare: [Buffer, Buffer][] = [];

  constructor(readonly baseUrl: string) {}

  /** POSTs `files` as Gotenberg's `files` parts to `route`; resolves with the time and the PDF's size. */
  convert(
    route: string,
    files: readonly string[],
    fields: Record<string, string> = {},
  ): Promise<{ ms: number; bytes: number }> {
    const started = performance.now();
    const body = multipartBody(fields, 'files', files);
    const buffers = this.spare.pop() ?? [
      Buffer.allocUnsafeSlow(CHUNK_BYTES),
      Buffer.allocUnsafeSlow(CHUNK_BYTES),
    ];
    return new Promise((resolve, reject) => {
      const request = http.request(new URL(route, this.baseUrl), {
        method: 'POST',
        agent: this.agent,
        headers: { 'content-type': body.contentType, 'content-length': body.contentLength },
      });
      request.once('error', reject);
      request.once('response', (response) => {
        let bytes = 0;
        const errorText: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (response.statusCode !== 200 && errorText.length < 16) errorText.push(chunk);
        });
        response.once('error', reject);
        response.once('end', () => {
          this.spare.push(buffers);
          if (response.statusCode !== 200)
            reject(
              new Error(
                `${route}: ${response.statusCode} ${Buffer.concat(errorText).toString('utf8').slice(0, 300)}`,
              ),
            );
          else resolve({ ms: performance.now() - started, bytes });
        });
      });
      body.writeTo(request, buffers).then(
        () => request.end(),
        (error: Error) => request.destroy(error),
      );
    });
  }
}
