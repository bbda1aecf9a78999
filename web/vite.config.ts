// Builds the web app into web/dist: relative asset URLs (base './'), so the same build works at `/`
// and under any sub-path a reverse proxy puts Quire behind; the SDK's browser entry is compiled from
// its sources in clients/typescript.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: {
    alias: {
      '@quire/client/browser': fileURLToPath(
        new URL('../clients/typescript/src/browser.ts', import.meta.url),
      ),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The budget is checked on gzipped bytes by scripts/measure.mjs; pdf.js is split out by import().
    chunkSizeWarningLimit: 2048,
    modulePreload: { polyfill: false },
  },
});
