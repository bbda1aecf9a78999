// The fast tier for behaviour that lives in HTTP alone: the production runtime and `buildApp`, answered
// through Fastify's `app.inject()` (no port, no sockets) and, by default, no workers.
import type { FastifyInstance } from 'fastify';
import { startWork } from '../../src/cli/serve.js';
import { buildApp, closeApp } from '../../src/http/app.js';
import { openTestRuntime, type TestOptions, type TestRuntime } from './server.js';

export interface InjectServer extends TestRuntime {
  app: FastifyInstance;
  /** A base URL for `Client`; requests sent with `fetch` below never leave the process. */
  url: string;
  /** `fetch` for this app: the request is handed to `app.inject()` and its answer made a Response. */
  fetch: typeof fetch;
}

const URL_BASE = 'http://quire.inject';

export async function startInjectServer(
  env: Record<string, string> = {},
  options: TestOptions = { workers: false },
): Promise<InjectServer> {
  const base = await openTestRuntime(env);
  const app = await buildApp(base.runtime);
  await app.ready();
  const stopWork = options.workers ? startWork(base.runtime) : undefined;
  return {
    ...base,
    app,
    url: URL_BASE,
    fetch: injectFetch(app),
    async close() {
      await closeApp(app, 1_000);
      await stopWork?.();
      await base.close();
    },
  };
}

/** Statuses whose responses carry no body; `new Response` refuses one for them. */
const NULL_BODY = new Set([101, 204, 205, 304]);

function injectFetch(app: FastifyInstance): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const response = await app.inject({
      method: request.method as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(request.headers),
      ...(body ? { body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) {
        if (one !== undefined) headers.append(name, String(one));
      }
    }
    return new Response(NULL_BODY.has(response.statusCode) ? null : response.rawPayload, {
      status: response.statusCode,
      headers,
    });
  };
}
