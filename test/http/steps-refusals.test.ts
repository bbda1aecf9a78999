// docs/api.md §2 (steps): a `steps` part is checked whole before any file is stored, and every
// refusal points into it under /steps/<index> (inject tier, no workers).
import { openAsBlob } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { type InjectServer, startInjectServer } from '../support/inject.js';

let server: InjectServer;
let client: Client;

beforeAll(async () => {
  server = await startInjectServer();
  client = new Client(server.url, (await server.newAccount()).key, server.fetch);
});
afterAll(() => server.close());

async function refusal(steps: unknown): Promise<{ status: number; code: string; pointers: string[] }> {
  const form = new FormData();
  form.set('steps', typeof steps === 'string' ? steps : JSON.stringify(steps));
  form.append('file', await openPdf(), 'a.pdf');
  const response = await client.fetch('/api/v1/jobs', { method: 'POST', body: form });
  const body = (await response.json()) as { code: string; errors?: Array<{ pointer?: string }> };
  return {
    status: response.status,
    code: body.code,
    pointers: (body.errors ?? []).map((e) => e.pointer ?? ''),
  };
}

function openPdf(): Promise<Blob> {
  return openAsBlob(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));
}

describe('steps refusals', () => {
  it.each([
    ['not JSON', '[{', 'invalid_request', ['/steps']],
    ['not an array', { tool: 'compress' }, 'invalid_request', ['/steps']],
    ['empty', [], 'invalid_request', ['/steps']],
    [
      'more than ten steps',
      Array.from({ length: 11 }, () => ({ tool: 'linearize' })),
      'invalid_request',
      ['/steps'],
    ],
    [
      'a step member that is not tool or options',
      [{ tool: 'rotate', angle: 90 }],
      'invalid_request',
      ['/steps/0/angle'],
    ],
    [
      'an unknown tool',
      [{ tool: 'rotate', options: { angle: 90 } }, { tool: 'shred' }],
      'unknown_tool',
      ['/steps/1/tool'],
    ],
    [
      'a bad option in step 2',
      [{ tool: 'linearize' }, { tool: 'rotate', options: { angle: 45 } }],
      'invalid_options',
      ['/steps/1/options/angle'],
    ],
    [
      'a password after the first step',
      [{ tool: 'linearize' }, { tool: 'compress', options: { password: 'x' } }],
      'invalid_options',
      ['/steps/1/options/password'],
    ],
    [
      'a tool that needs several files after the first step',
      [{ tool: 'linearize' }, { tool: 'merge' }],
      'invalid_options',
      ['/steps/1/tool'],
    ],
    [
      'a tool that cannot take the step before’s output',
      [{ tool: 'info' }, { tool: 'rotate', options: { angle: 90 } }],
      'invalid_options',
      ['/steps/1/tool'],
    ],
  ])('refuses %s', async (_what, steps, code, pointers) => {
    const answer = await refusal(steps);
    expect(answer.status).toBe(400);
    expect(answer.code).toBe(code);
    expect(answer.pointers).toEqual(pointers);
  });

  it('accepts a chain whose every step takes what the one before makes, and shows the steps', async () => {
    const form = new FormData();
    form.set(
      'steps',
      JSON.stringify([{ tool: 'pdf-to-images', options: { dpi: 36 } }, { tool: 'images-to-pdf' }]),
    );
    form.append('file', await openPdf(), 'a.pdf');
    const response = await client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(response.status).toBe(201);
    const job = (await response.json()) as { tool: string; steps: Array<{ tool: string }>; step?: unknown };
    expect(job.tool).toBe('pdf-to-images');
    expect(job.steps.map((s) => s.tool)).toEqual(['pdf-to-images', 'images-to-pdf']);
    expect(job.step).toBeUndefined();
  });
});
