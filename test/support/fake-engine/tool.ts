// A test-only tool that drives the fake engine end to end (HTTP → job → worker → engine): it runs
// the asked behaviour, then opens the output with the real qpdf as real tools check their engines'.
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { QuireError } from '../../../src/errors/quire-error.js';
import { defineTool } from '../../../src/tools/framework/types.js';
import { FAKE_BEHAVIOURS, fakeEngineOf } from './index.js';

export const fakeTool = defineTool({
  name: 'fake',
  title: 'Fake engine run',
  description: 'Test only: runs the fake engine with the given behaviour.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'] },
  options: Type.Object(
    { behaviour: Type.Union(FAKE_BEHAVIOURS.map((b) => Type.Literal(b))) },
    { additionalProperties: false },
  ),
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  async run(ctx) {
    const input = ctx.inputs[0];
    if (!input) throw new QuireError('engine_failed', 'the fake tool needs one input');
    const output = path.join(ctx.workDir, 'fake-output.pdf');
    const call = {
      workDir: ctx.workDir,
      signal: ctx.signal,
      timeoutMs: ctx.limits.timeoutMs,
      memoryBytes: ctx.limits.memoryBytes,
    };
    await fakeEngineOf(ctx.engines).run(ctx.options.behaviour, input.path, output, {
      ...call,
      progress: ctx.progress.engineSlot(),
    });
    // An engine can exit 0 with a broken file: trust only what qpdf opens.
    const pages = await ctx.engines.qpdf.pageCount(output, call);
    if (pages < 1) throw new QuireError('pdf_corrupt', 'The output has no pages');
    return { path: output, name: 'fake.pdf', contentType: 'application/pdf' };
  },
});
