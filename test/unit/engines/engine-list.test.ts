// The engine list: one module per adapter, each built under its own name; extra modules (the fault
// tier's fake engine) are built beside them. Building starts no process: pools start on first use.
import { describe, expect, it } from 'vitest';
import { closeEngines, createEngines, engineModules } from '../../../src/engines/index.js';
import { fakeEngine } from '../../support/fake-engine/index.js';

const limits = { timeoutMs: 1_000, memoryBytes: 256 * 1024 ** 2 };

describe('engine list', () => {
  it('names every module once', () => {
    const names = engineModules.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([
      'qpdf',
      'qpdfOverlay',
      'ghostscript',
      'poppler',
      'ocrmypdf',
      'libreoffice',
      'chromium',
      'pyhanko',
      'pymupdf',
      'pdf2docx',
      'pdfdiff',
      'verapdf',
      'pymupdf4llm',
    ]);
  });

  it('builds one adapter per module under its name', async () => {
    const engines = createEngines(limits);
    expect(Object.keys(engines)).toEqual(engineModules.map((m) => m.name));
    await closeEngines(engines);
  });

  it('builds extra modules beside the list', async () => {
    const engines = createEngines({ ...limits, extra: [fakeEngine] });
    expect(Object.keys(engines)).toEqual([...engineModules.map((m) => m.name), 'fake']);
    await closeEngines(engines, [fakeEngine]);
  });
});
