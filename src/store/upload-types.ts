// The resumable uploads' store interface (src/uploads/ keeps the tus data store and these rows in step).

/** A resumable upload's row: the bytes and offset live in the tus data store (src/uploads/). */
export interface UploadRecord {
  id: string;
  accountId: string;
  /** The declared Upload-Length. */
  length: number;
  createdAt: number;
  expiresAt: number;
  /** When the last byte arrived; undefined while the upload is unfinished. */
  finishedAt?: number;
}

export interface UploadStore {
  create(upload: UploadRecord): Promise<void>;
  /** The account's upload; another account's id reads as absent. */
  get(accountId: string, id: string): Promise<UploadRecord | undefined>;
  /** Any account's upload: for the tus hooks, which check the owner themselves. */
  find(id: string): Promise<UploadRecord | undefined>;
  markFinished(id: string, now?: number): Promise<void>;
  /**
   * Deletes the account's finished upload row and returns it: one statement, so two jobs naming
   * the same upload can never both take it. Undefined when absent, another account's or unfinished.
   */
  take(accountId: string, id: string): Promise<UploadRecord | undefined>;
  remove(id: string): Promise<void>;
  /** Declared bytes of the account's uploads not yet taken or expired, for its storage quota. */
  reservedBytes(accountId: string, now: number): Promise<number>;
  /** Uploads created and not finished, for the active-uploads gauge. */
  countUnfinished(): Promise<number>;
  /** Uploads past their expiry, oldest first. */
  expired(now: number, limit: number): Promise<UploadRecord[]>;
  /**
   * An exclusive lock on the upload across every process sharing the database (PostgreSQL advisory
   * lock), or undefined when another holder has it. Absent on SQLite, whose uploads are served by
   * one process: the tus server's in-memory locker does there.
   */
  tryLock?(id: string): Promise<(() => Promise<void>) | undefined>;
}
