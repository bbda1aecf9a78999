// Every published options example over real HTTP with real workers and engines: each is accepted
// (201) and, on a sample input fit for its tool, succeeds.
import { beforeAll, describe, expect, it } from 'vitest';
import { inputsFor, type PublishedTool, sampleOptions } from '../support/tool-samples.js';
import { useTestServer } from '../support/use-test-server.js';

let published: PublishedTool[];

const quire = useTestServer();
beforeAll(async () => {
  const body = (await (await quire.client.fetch('/api/v1/tools')).json()) as { data: PublishedTool[] };
  published = body.data;
});

describe('published option examples', () => {
  it('accepts every published example, and each example job succeeds on a fitting sample input', async () => {
    // All submitted first (each must be accepted: 201), then awaited, so the workers run them side
    // by side instead of one at a time.
    const submitted: Array<{ label: string; id: string }> = [];
    for (const tool of published.filter((t) => t.available)) {
      for (const example of (tool.options_schema.examples as Record<string, unknown>[]) ?? []) {
        const options = await sampleOptions(tool, example);
        const job = await quire.client.submit({ tool: tool.name, options, files: inputsFor(tool) });
        submitted.push({ label: `${tool.name} ${JSON.stringify(example)}`, id: job.id });
      }
    }
    expect(submitted.length).toBeGreaterThan(20);
    const failed: string[] = [];
    for (const { label, id } of submitted) {
      const done = await quire.client.waitFor(id, 180);
      expect(done.error?.code, label).not.toBe('invalid_options');
      expect(['succeeded', 'failed'], label).toContain(done.status);
      if (done.status === 'failed') failed.push(`${label}: ${done.error?.code}`);
    }
    // Each tool gets a sample input holding what its definition declares it needs
    // (test/support/tool-samples.ts), so an example that fails names options the input cannot take.
    expect(failed).toEqual([]);
  }, 240_000);
});
