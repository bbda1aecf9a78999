// 405 for known paths requested with a method they do not serve (docs/api.md §8).
import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { QuireError } from '../errors/quire-error.js';
import { sendProblem } from './problem.js';

/**
 * Answers 405 with `Allow` for known paths (API and operations alike) requested with any method they
 * do not serve. Fastify routes only the methods it knows, so every other method Node parses (TRACE,
 * PROPFIND, …) is made known first; without that it would fall to the not-found handler (404).
 */
export function registerMethodNotAllowed(app: FastifyInstance): void {
  // CONNECT never reaches the request handler (Node emits 'connect' for it).
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  const methodsByUrl = new Map<string, Set<string>>();
  for (const route of collectedRoutes.get(app) ?? []) {
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of route.methods) set.add(method);
    // Fastify answers HEAD for every GET route by itself.
    if (set.has('GET')) set.add('HEAD');
    methodsByUrl.set(route.url, set);
  }
  for (const [url, methods] of methodsByUrl) {
    const missing = app.supportedMethods.filter((m) => m !== 'CONNECT' && !methods.has(m));
    if (missing.length === 0) continue;
    const allow = [...methods].join(', ');
    const refuse = async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header('Allow', allow);
      return sendProblem(reply, new QuireError('method_not_allowed', `Allowed: ${allow}.`));
    };
    app.route({
      method: missing,
      url,
      config: { methodNotAllowed: true },
      // Answered before any body is parsed: a wrong method gets 405 whatever its body (QUERY
      // without a Content-Type would otherwise be Fastify's 400, a POST with an odd one a 415).
      onRequest: refuse,
      handler: refuse,
    });
  }
}

const collectedRoutes = new WeakMap<FastifyInstance, { url: string; methods: string[] }[]>();

/** Records routes as they are added so the 405 handler knows which methods each path serves. */
export function trackRoutes(app: FastifyInstance): void {
  const list: { url: string; methods: string[] }[] = [];
  collectedRoutes.set(app, list);
  app.addHook('onRoute', (route) => {
    if (route.config?.methodNotAllowed) return;
    // A route that forgot its scope would be open to anyone: refuse to build the app instead.
    if (route.url.startsWith('/api/') && route.config?.scope === undefined)
      throw new Error(`${route.url} declares no scope`);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    list.push({ url: route.url, methods: methods.map(String) });
  });
}
