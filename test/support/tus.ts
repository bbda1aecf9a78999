// tus-js-client (the independent tus implementation) driven from tests, a cheap large PDF made on the
// fly, and a TCP proxy that drops connections mid-upload: the pieces of the resumable-upload tests.
import { createHash } from 'node:crypto';
import net from 'node:net';
import { Readable } from 'node:stream';
import { Upload } from 'tus-js-client';

export interface TusOptions {
  key: string;
  chunkSize: number;
  size: number;
  /** Sent with each chunk in turn: several API processes behind one upload. */
  endpoints?: string[];
  metadata?: Record<string, string>;
}

/** Uploads `source` with tus-js-client; resolves with the upload's URL once every byte is stored. */
export function tusUpload(endpoint: string, source: Readable, options: TusOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    let request = 0;
    const upload = new Upload(source, {
      endpoint: `${endpoint}/api/v1/uploads`,
      chunkSize: options.chunkSize,
      uploadSize: options.size,
      headers: { authorization: `Bearer ${options.key}` },
      metadata: options.metadata ?? { filename: 'big.pdf' },
      retryDelays: [0, 200, 500, 1000, 2000, 3000],
      storeFingerprintForResuming: false,
      onBeforeRequest: (req) => {
        // Every request to the next process in turn: the upload's path stays, the origin changes.
        const endpoints = options.endpoints;
        if (!endpoints) return;
        const url = new URL(req.getURL());
        const target = new URL(endpoints[request++ % endpoints.length]!);
        url.host = target.host;
        (req as unknown as { _url: string })._url = url.toString();
      },
      onError: reject,
      onSuccess: () => resolve(upload.url!),
    });
    upload.start();
  });
}

/**
 * A valid one-page PDF of `size` bytes: the page, then one unreferenced stream object of filler that
 * readers skip (they follow the xref), so engines open it as fast as a small file. Returns the stream
 * and its SHA-256, known once the stream has been read to the end.
 */
export function largePdf(size: number): { stream: Readable; sha256: Promise<string> } {
  const head = Buffer.from(
    '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n' +
      '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n' +
      '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n' +
      '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>\nendobj\n' +
      '4 0 obj\n<< /Length 20 >>\nstream\n0 0 1 rg 20 20 80 80 re f\nendstream\nendobj\n',
    'latin1',
  );
  const offsets = [15];
  for (const n of [2, 3, 4, 5]) offsets.push(head.indexOf(`\n${n} 0 obj`) + 1);
  offsets[4] = head.length;
  const tailFor = (fillerLength: number) => {
    const xrefAt =
      head.length + fillerPrefix(fillerLength).length + fillerLength + '\nendstream\nendobj\n'.length;
    const entries = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
    return Buffer.from(
      `\nendstream\nendobj\nxref\n0 6\n0000000000 65535 f \n${entries}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`,
      'latin1',
    );
  };
  // The tail's length depends on the filler's only through digit counts: settle it in two passes.
  let filler = size - head.length - fillerPrefix(size).length - tailFor(size).length;
  filler = size - head.length - fillerPrefix(filler).length - tailFor(filler).length;
  const parts = [head, fillerPrefix(filler)];
  const block = Buffer.alloc(1024 * 1024, 0x41);
  const hash = createHash('sha256');
  let resolveHash!: (digest: string) => void;
  const sha256 = new Promise<string>((resolve) => {
    resolveHash = resolve;
  });
  const stream = Readable.from(
    (function* () {
      for (const part of parts) {
        hash.update(part);
        yield part;
      }
      for (let left = filler; left > 0; left -= block.length) {
        const piece = left >= block.length ? block : block.subarray(0, left);
        hash.update(piece);
        yield piece;
      }
      const tail = tailFor(filler);
      hash.update(tail);
      yield tail;
      resolveHash(hash.digest('hex'));
    })(),
    { objectMode: false },
  );
  return { stream, sha256 };
}

function fillerPrefix(length: number): Buffer {
  return Buffer.from(`5 0 obj\n<< /Length ${length} >>\nstream\n`, 'latin1');
}

export interface DroppingProxy {
  url: string;
  /** Connections cut so far. */
  readonly drops: number;
  close(): Promise<void>;
}

/**
 * Forwards TCP to `target`, cutting both sides of the connection that carries the upload past each
 * of `dropAt` (total bytes sent by clients): a network failure in the middle of a chunk.
 */
export async function droppingProxy(target: URL, dropAt: number[]): Promise<DroppingProxy> {
  let sent = 0;
  let drops = 0;
  const pending = [...dropAt].sort((a, b) => a - b);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (pending.length > 0 && sent >= pending[0]!) {
        pending.shift();
        drops++;
        cut();
        return;
      }
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.pipe(client);
    for (const socket of [client, upstream]) {
      socket.on('error', cut);
      socket.on('close', () => {
        sockets.delete(socket);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get drops() {
      return drops;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
