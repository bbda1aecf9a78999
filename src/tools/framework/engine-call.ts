// Engine call options bound to a tool's job: what every engine method a tool calls takes besides
// its own arguments.
import type { EngineCallOptions } from '../../engines/call-options.js';
import type { RunContext } from './types.js';

/** Engine call options bound to the job: its work dir, cancel signal and per-tool limits. */
export function engineCall<O>(ctx: RunContext<O>): EngineCallOptions {
  return {
    workDir: ctx.workDir,
    signal: ctx.signal,
    timeoutMs: ctx.limits.timeoutMs,
    memoryBytes: ctx.limits.memoryBytes,
    ...(ctx.quickOpened ? { quickOpened: true } : {}),
  };
}

/**
 * Engine call options whose engine leaves its progress in a slot the step's reporter reads, as the
 * current step's fraction.
 */
export function engineCallWithProgress<O>(ctx: RunContext<O>): EngineCallOptions {
  return { ...engineCall(ctx), progress: ctx.progress.engineSlot() };
}
