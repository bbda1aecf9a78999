// What the tus server's hooks and data store need to know about the HTTP request they serve: the
// caller (set by Quire's auth) and the chunk's declared checksum. The tus handlers see only a Web
// Request, so the HTTP route runs them inside this context.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';

export interface TusRequestContext {
  accountId: string;
  /** The caller's plan limit on one file: the most an `Upload-Length` may declare. */
  maxFileBytes: number;
  /** `Upload-Checksum: sha256 <base64>` of this request's body (tus checksum extension). */
  sha256?: string;
  /** The request whose body is the chunk (POST and PATCH), read by chunk-body.ts. */
  body?: IncomingMessage;
}

const storage = new AsyncLocalStorage<TusRequestContext>();

export function runInTusContext<T>(context: TusRequestContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}

export function tusContext(): TusRequestContext {
  const context = storage.getStore();
  // Only the uploads route calls the tus server, always inside a context: a call outside one is a
  // wiring bug, not a client error.
  if (!context) throw new Error('tus request outside its request context');
  return context;
}
