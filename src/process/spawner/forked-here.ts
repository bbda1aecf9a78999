// A forkserver run asked for by the service itself, not through the engine spawner: the service
// connects to the forkserver's socket and hears the child's frames directly, two process hops and
// two IPC messages fewer per run (0.25 ms of a small merge's qpdf run, more when the machine is
// busy). The forkserver is started once from here and dies with the service (its parent-death
// signal); everything else still starts through the spawner, and so does a run the forkserver
// cannot take (`unavailable`), the ordinary way.
import { HeadBuffer, TailBuffer } from '../stderr-tail.js';
import { ForkServer } from './forkserver.js';
import type { EngineHandlers, EngineStart } from './protocol.js';

/** Forkservers by binary, started on first use. */
const forkServers = new Map<string, ForkServer>();

/**
 * Runs `request` (which names a forkserver) through that forkserver, reporting to `handlers` as the
 * spawner's messages would; `ordinary` starts it without the forkserver when the forkserver cannot.
 */
export function startForkedHere(
  request: EngineStart & { forkServer: NonNullable<EngineStart['forkServer']> },
  handlers: EngineHandlers,
  ordinary: () => void,
): void {
  const call = request.forkServer;
  let server = forkServers.get(call.binary);
  if (!server) {
    server = new ForkServer(call.binary);
    forkServers.set(call.binary, server);
  }
  const stdout = new HeadBuffer(request.stdoutKeepBytes);
  const stderr = new TailBuffer(request.stderrTailBytes);
  server.run(
    { cwd: request.cwd, env: request.env, call },
    {
      unavailable: ordinary,
      spawned: (pid) => handlers.spawned(pid),
      output: (stream, chunk) => {
        if (stream === 'stderr') stderr.push(chunk);
        else if (request.stdoutKeepBytes > 0) stdout.push(chunk);
        if (stream === 'stdout' ? request.relayStdout : request.relayStderr) handlers[stream](chunk);
      },
      exited: (exitCode, signal) =>
        handlers.closed({
          type: 'closed',
          id: 0,
          exitCode,
          signal,
          stdout: stdout.toBuffer(),
          stdoutTruncated: stdout.truncated,
          stderrTail: stderr.toBuffer(),
        }),
      failed: (message) => handlers.failed(new Error(message)),
    },
  );
}
