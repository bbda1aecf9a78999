// A worker's transfers (URL imports, exports) over the one guarded outbound client
// (outbound/request.ts): the job's signal with the transfer's time limit and stall watch, and every
// failure mapped to a stable reason that becomes the job error of its direction.
import type http from 'node:http';
import type net from 'node:net';
import type { Readable } from 'node:stream';
import { SchemeError, sendOutbound } from '../outbound/request.js';

/** Why a transfer did not get an answer; each maps to the job error of its direction. */
export class TransferError extends Error {
  override name = 'TransferError';
  constructor(
    readonly reason: 'forbidden_address' | 'timeout' | 'stalled' | 'network' | 'scheme',
    message: string,
  ) {
    super(message);
  }
}

export interface TransferRequest {
  method: 'GET' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  /** Aborts the exchange: the job's lease signal combined with the transfer's time limit. */
  signal: AbortSignal;
  /** The time-limit half of `signal` (the whole limit or a stall), to tell them from a lost lease. */
  deadline: AbortSignal;
  /** Watches the connection's bytes for a stall (`transferSignals`). */
  watch: (socket: net.Socket) => void;
  allowPrivate: boolean;
  body?: { stream: Readable; length: number };
}

const USER_AGENT = 'Quire-Transfers/1';

/** Resolves with the response once its head arrives; the caller reads or destroys the body. */
export async function exchange(request: TransferRequest): Promise<http.IncomingMessage> {
  try {
    return await sendOutbound({
      method: request.method,
      url: request.url,
      headers: request.headers,
      signal: request.signal,
      allowPrivate: request.allowPrivate,
      userAgent: USER_AGENT,
      onSocket: request.watch,
      ...(request.body ? { body: request.body } : {}),
    });
  } catch (error) {
    throw classify(error, request);
  }
}

/** A stable reason for whatever a request or its body stream failed with. */
export function classify(error: unknown, request: Pick<TransferRequest, 'deadline'>): Error {
  if (error instanceof TransferError) return error;
  if (error instanceof SchemeError) return new TransferError('scheme', error.message);
  const e = error as { code?: string; name?: string };
  if (e.code === 'EBLOCKEDADDRESS')
    return new TransferError('forbidden_address', 'the host resolves to a non-public address');
  if (request.deadline.aborted)
    return request.deadline.reason instanceof TransferError
      ? request.deadline.reason
      : new TransferError('timeout', 'the time limit passed');
  if (e.name === 'AbortError' || e.code === 'ABORT_ERR') return error as Error; // the lease: not ours
  return new TransferError('network', `the connection failed (${e.code ?? 'error'})`);
}

/** The least a transfer must move in each window before it counts as stalled (curl's --speed-limit). */
export interface StallLimit {
  stallMs: number;
  stallMinBytes: number;
}

/**
 * A signal for one transfer: the job's own (lease lost, cancel), the whole time limit, or a stall —
 * whichever first. `watch` is given the connection's socket: a peer that trickles a byte now and then,
 * never reads what is sent, or never answers is cut at the first window that moves too little, so it
 * holds its place in the transfer pool for one window, not for the whole time limit.
 */
export function transferSignals(jobSignal: AbortSignal, timeoutMs: number, stall: StallLimit) {
  const stalled = new AbortController();
  const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), stalled.signal]);
  const watch = (socket: net.Socket) => {
    // Bytes on the socket, both ways: the body read or written and the answer. Counted at the socket
    // because a listener on the streams would change how they flow.
    const moved = () => socket.bytesRead + socket.bytesWritten;
    let last = moved();
    const timer = setInterval(() => {
      const now = moved();
      if (now - last < stall.stallMinBytes) {
        clearInterval(timer);
        const why = `fewer than ${stall.stallMinBytes} bytes moved in ${stall.stallMs} ms`;
        stalled.abort(new TransferError('stalled', why));
      }
      last = now;
    }, stall.stallMs);
    timer.unref();
    socket.once('close', () => clearInterval(timer));
  };
  return { deadline, signal: AbortSignal.any([jobSignal, deadline]), watch };
}
