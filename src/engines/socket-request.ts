// One JSON-line request to a pooled engine worker over its Unix socket (the LibreOffice bridge, the
// veraPDF JVM): the request as one line, the first line of the answer as the reply. A timeout or an
// abort rejects and closes the connection; the caller then kills the instance, since a busy engine
// cannot be interrupted from outside.
import net from 'node:net';
import { QuireError } from '../errors/quire-error.js';
import { AbortedError } from '../process/runner.js';

export interface SocketRequestOptions {
  /** The engine's name in messages: "LibreOffice did not finish within 60 s", "veraPDF stopped". */
  engine: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export function askOverSocket<Reply>(
  socket: string,
  request: unknown,
  options: SocketRequestOptions,
): Promise<Reply> {
  const { engine, timeoutMs, signal } = options;
  return new Promise((resolve, reject) => {
    const conn = net.connect(socket);
    let buffer = '';
    const done = (fn: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      conn.destroy();
      fn();
    };
    const seconds = Math.round(timeoutMs / 1000);
    const timer = setTimeout(
      () =>
        done(() =>
          reject(
            new QuireError('timeout', `${engine} did not finish within ${seconds} s`, {
              extras: { timeout_ms: timeoutMs },
            }),
          ),
        ),
      timeoutMs,
    );
    const onAbort = () => done(() => reject(new AbortedError(signal?.reason)));
    // A job canceled while the pool was starting this instance gets no 'abort' event any more.
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end >= 0) done(() => resolve(JSON.parse(buffer.slice(0, end)) as Reply));
    });
    const stopped = () => done(() => reject(new QuireError('engine_failed', `${engine} stopped`)));
    conn.on('error', stopped);
    conn.on('close', stopped);
    conn.write(`${JSON.stringify(request)}\n`);
  });
}
