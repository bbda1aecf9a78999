// The typed JSON side of the API: openapi-fetch over the generated `paths`, sending through the
// SDK's transport (key, Idempotency-Key, retries), so every refused answer arrives as a QuireError.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/schema.js';
import type { Transport } from './transport.js';

export type Api = Client<paths>;

export function createApi(transport: Transport): Api {
  return createClient<paths>({
    baseUrl: transport.baseUrl,
    async fetch(request: Request) {
      // JSON bodies are small: read once, sent again as they are on a retry.
      const body = request.body === null ? undefined : await request.arrayBuffer();
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      // The path under the base URL: openapi-fetch joined them, and the base may have a path of its own.
      const path = request.url.startsWith(transport.baseUrl)
        ? request.url.slice(transport.baseUrl.length)
        : new URL(request.url).pathname + new URL(request.url).search;
      return transport.send({
        method: request.method,
        path,
        headers,
        body: body === undefined ? undefined : () => body,
        signal: request.signal,
      });
    },
  });
}

/** The data of an answer the transport already checked (it throws on every refusal). */
export function data<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined)
    throw new Error(`empty answer from ${result.response.url} (${result.response.status})`);
  return result.data;
}

/** Every item of a cursor-paged list (`starting_after` the last id seen), page after page. */
export async function* everyItem<T extends { id: string }>(
  page: (after: string | undefined) => Promise<{ data: T[]; has_more: boolean }>,
): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const { data: items, has_more } = await page(after);
    yield* items;
    const last = items.at(-1);
    if (!has_more || last === undefined) return;
    after = last.id;
  }
}
