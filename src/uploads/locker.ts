// @tus/server's Locker over the uploads store's cross-process lock (PostgreSQL advisory locks), so
// that any API process may take any chunk of any upload.
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import { ERRORS } from '@tus/utils';
import type { UploadStore } from '../store/upload-types.js';

/** How often a waiting request tries the lock again; a holder lets go when its PATCH ends. */
const RETRY_MS = 100;
/** A client that resumed after a drop waits for the old request's lock at most this long. */
const WAIT_MS = 30_000;

type TryLock = NonNullable<UploadStore['tryLock']>;

export class DatabaseLocker implements Locker {
  /** This process's holders, so a new request can ask an old one here to let go at once. */
  private readonly held = new Map<string, RequestRelease>();

  constructor(private readonly tryLock: TryLock) {}

  newLock(id: string): Lock {
    let release: (() => Promise<void>) | undefined;
    return {
      lock: async (signal, cancelReq) => {
        const deadline = Date.now() + WAIT_MS;
        for (;;) {
          if (signal.aborted) throw ERRORS.ABORTED;
          release = await this.tryLock(id);
          if (release) {
            this.held.set(id, cancelReq);
            return;
          }
          // The holder is in this process: ask it to stop (tus "lock drain"); in another process it
          // stops when its request ends, which a dropped connection or the idle timeout brings.
          await this.held.get(id)?.();
          if (Date.now() > deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        }
      },
      unlock: async () => {
        this.held.delete(id);
        await release?.();
        release = undefined;
      },
    };
  }
}
