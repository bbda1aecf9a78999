// Compiled by sdk.test.ts: each @ts-expect-error marks a call the SDK's types must refuse.
import type { Quire } from '../../../clients/typescript/src/index.js';

export async function calls(quire: Quire): Promise<void> {
  await quire.run('compress', ['in.pdf'], { level: 'high', grayscale: true });
  await quire.run('rotate', ['in.pdf'], { angle: 90 });
  await quire.jobs.create({
    steps: [
      { tool: 'rotate', options: { angle: 90 } },
      { tool: 'compress', options: { level: 'low' } },
    ],
    inputs: ['in.pdf'],
  });
  // A tool this package does not know takes any options.
  await quire.run('reverse', ['in.pdf'], { anything: true });
  // @ts-expect-error `level` is "lossless" | "low" | "medium" | "high"
  await quire.run('compress', ['in.pdf'], { level: 'extreme' });
  // @ts-expect-error compress has no `angle`
  await quire.run('compress', ['in.pdf'], { angle: 90 });
  // @ts-expect-error rotate needs `angle`
  await quire.run('rotate', ['in.pdf'], {});
  await quire.jobs.create({
    // @ts-expect-error a step's options are typed by its tool
    steps: [{ tool: 'compress', options: { level: 'extreme' } }],
    inputs: ['in.pdf'],
  });
}
