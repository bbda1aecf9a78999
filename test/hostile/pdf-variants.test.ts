// Every generated hostile PDF through a representative set of tools on the engine tier (the runner's
// opening included): each ends succeeded or with a stable, named code, never engine_failed, in time.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuireError } from '../../src/errors/quire-error.js';
import { tools } from '../../src/tools/registry.js';
import { healthy, hostileVariants, writeVariant } from '../support/hostile-pdf.js';
import { runTool } from '../support/tool-context.js';

/** The tools every variant goes through, each with options it accepts. */
const REPRESENTATIVE: Record<string, Record<string, unknown>> = {
  info: {},
  rotate: { angle: 90 },
  compress: {},
  'pdf-to-images': { dpi: 36 },
  'extract-text': {},
  flatten: {},
  merge: {},
  metadata: { title: 'hostile' },
  linearize: {},
  watermark: { text: 'hostile' },
};

/** Codes a hostile input may end with: the file is refused by name or a limit, never "engine broke". */
const STABLE = ['succeeded', 'pdf_corrupt', 'limit_pages_exceeded', 'limit_page_pixels_exceeded', 'timeout'];

/** Well under the 60 s engine limit: a variant that makes a tool spin is a failure, not a slow pass. */
const PER_TOOL_MS = 30_000;

async function outcome(tool: string, files: string[], options: Record<string, unknown>) {
  const definition = tools.find((t) => t.name === tool);
  if (!definition) throw new Error(`no tool ${tool}`);
  try {
    const run = await runTool(definition, files, options, { timeoutMs: PER_TOOL_MS });
    await run.cleanup();
    return 'succeeded';
  } catch (err) {
    return err instanceof QuireError ? err.code : `crash: ${String(err)}`;
  }
}

let dir: string;
let companion: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'quire-hostile-pdf-'));
  companion = await writeVariant(dir, 'healthy.pdf', healthy());
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(Object.keys(hostileVariants))('hostile PDF %s', (variant) => {
  it.each(Object.keys(REPRESENTATIVE))(
    '%s ends with a stable code, never engine_failed',
    async (tool) => {
      const file = await writeVariant(dir, `${variant}.pdf`, hostileVariants[variant]!());
      const files = tool === 'merge' ? [file, companion] : [file];
      const started = Date.now();
      const code = await outcome(tool, files, REPRESENTATIVE[tool]!);
      expect(STABLE, `${variant} × ${tool} ended ${code}`).toContain(code);
      expect(Date.now() - started).toBeLessThan(PER_TOOL_MS + 5_000);
    },
    PER_TOOL_MS * 2,
  );
});
