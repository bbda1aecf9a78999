// Job change notices and the in-process bus that carries them: wake idle workers, resolve long-polls
// and SSE streams, and abort a running engine on cancel without waiting for the next lease poll.
// Changes made by other processes arrive here too when the database carries them (PostgreSQL
// NOTIFY, see Database.listenForChanges); on SQLite other processes fall back to polling.
import { EventEmitter } from 'node:events';
import type { JobRecord } from './job.js';

/** A job changed; the same notice travels in-process and between processes. */
export interface JobChangeNotice {
  jobId: string;
  kind: 'created' | 'updated' | 'terminal' | 'canceled';
  /** In-process only: the job as the change left it, when the writer has it (no read needed). */
  job?: JobRecord;
}

export class JobEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per waiting request or running job; many can wait at once.
    this.emitter.setMaxListeners(0);
  }

  emit(change: JobChangeNotice): void {
    this.emitter.emit('change', change);
    this.emitter.emit(`job:${change.jobId}`, change);
  }

  /** Calls `listener` on every change of any job; returns the unsubscribe function. */
  onAny(listener: (change: JobChangeNotice) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  onJob(jobId: string, listener: (change: JobChangeNotice) => void): () => void {
    const name = `job:${jobId}`;
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
