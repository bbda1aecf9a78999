import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Engine tests spawn real binaries; two cores, so keep file parallelism modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
