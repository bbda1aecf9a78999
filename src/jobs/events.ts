// In-process job notifications: wake idle workers, resolve long-polls and SSE streams, and abort a
// running engine on cancel without waiting for the next lease poll. Changes made by other processes
// arrive here too when the database carries them (PostgreSQL NOTIFY, see Database.listenForChanges);
// on SQLite other processes fall back to polling.
import { EventEmitter } from 'node:events';
import type { JobChangeNotice } from '../store/types.js';

export type JobChange = JobChangeNotice;

export class JobEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per waiting request or running job; many can wait at once.
    this.emitter.setMaxListeners(0);
  }

  emit(change: JobChange): void {
    this.emitter.emit('change', change);
    this.emitter.emit(`job:${change.jobId}`, change);
  }

  /** Calls `listener` on every change of any job; returns the unsubscribe function. */
  onAny(listener: (change: JobChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  onJob(jobId: string, listener: (change: JobChange) => void): () => void {
    const name = `job:${jobId}`;
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
