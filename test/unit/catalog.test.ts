import { describe, expect, it } from 'vitest';
import { ToolCatalog } from '../../src/tools/framework/catalog.js';
import { tools } from '../../src/tools/registry.js';

const catalog = new ToolCatalog(tools, [
  { name: 'qpdf', available: true },
  { name: 'ghostscript', available: false, reason: 'gs is not installed' },
  { name: 'poppler', available: true },
]);

describe('tool catalogue validation', () => {
  it('fills documented defaults into the options a job records', () => {
    expect(catalog.checkOptions('compress', {})).toEqual({
      ok: true,
      options: { level: 'medium', grayscale: false },
    });
  });

  it.each([
    ['rotate', { angle: 45 }, [{ pointer: '/options/angle', detail: 'must be one of 90, 180, 270' }]],
    [
      'rotate',
      { angle: 90, colour: 'red' },
      [{ pointer: '/options/colour', detail: 'is not a known option' }],
    ],
    ['rotate', {}, [{ pointer: '/options/angle', detail: 'is required' }]],
    [
      'compress',
      { level: 'extreme' },
      [{ pointer: '/options/level', detail: 'must be one of "lossless", "low", "medium", "high"' }],
    ],
    ['split', { mode: 'every' }, [{ pointer: '/options/pages', detail: 'is required' }]],
  ])('%s %o → %o', (tool, options, errors) => {
    const result = catalog.checkOptions(tool, options);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toEqual(expect.arrayContaining(errors));
  });

  it.each([
    ['1-3,x', 'has "x", which is not a page or a range'],
    ['0-3', 'names page 0 in "0-3": pages count from 1'],
    ['r0', 'names page 0 in "r0": pages count from 1'],
    ['1,,2', 'has an empty item between commas'],
    ['1-2-3', 'has "1-2-3", which is not a page or a range'],
  ])('says in words what is wrong with the page selection %j, without the pattern', (pages, start) => {
    const result = catalog.checkOptions('rotate', { angle: 90, pages });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.pointer).toBe('/options/pages');
    expect(result.errors[0]!.detail.startsWith(start), result.errors[0]!.detail).toBe(true);
    expect(result.errors[0]!.detail).not.toContain('(?:');
    expect(result.errors[0]!.detail.length).toBeLessThan(200);
  });

  it('refuses protect without any password and a page selection of bad syntax', () => {
    expect(catalog.checkOptions('protect', { encryption: 'aes-128' }).ok).toBe(false);
    expect(catalog.checkOptions('rotate', { angle: 90, pages: '3-x' }).ok).toBe(false);
    expect(catalog.checkOptions('rotate', { angle: 90, pages: '1-3, 7, r2-z' }).ok).toBe(true);
  });

  it('marks a tool unavailable when one of its engines is missing, with the reason', () => {
    expect(catalog.get('compress')).toMatchObject({
      available: false,
      reason: expect.stringContaining('ghostscript'),
    });
    expect(catalog.get('rotate')).toMatchObject({ available: true });
  });
});

describe('declared inputs', () => {
  it('every tool whose PDFs the runner opens declares the inspect step the opening runs in', () => {
    const opening = tools.filter((tool) => tool.inputs.opens === 'pdf');
    expect(opening.length).toBe(29);
    for (const tool of opening) expect(Object.keys(tool.steps ?? {}), tool.name).toContain('inspect');
  });
});

describe('the ocr languages', () => {
  const withTesseract = new ToolCatalog(tools, [
    { name: 'tesseract', available: true, languages: ['eng', 'nld'] },
  ]);
  const languagesOf = (c: ToolCatalog) =>
    (c.get('ocr')!.tool.options.properties.languages as unknown as { items: { enum: string[] } }).items.enum;

  it('are the languages the engine status names, each catalogue its own', () => {
    expect(languagesOf(withTesseract)).toEqual(['eng', 'nld']);
    expect(withTesseract.checkOptions('ocr', { languages: ['nld'] }).ok).toBe(true);
    expect(withTesseract.checkOptions('ocr', { languages: ['deu'] }).ok).toBe(false);
    // `catalog` was built before `withTesseract`: a later catalogue leaves it as it was.
    expect(languagesOf(catalog)).toEqual(['deu', 'eng', 'fra', 'spa']);
    expect(languagesOf(withTesseract)).toEqual(['eng', 'nld']);
  });

  it('fall back to what setup installs when the status names none', () => {
    expect(catalog.checkOptions('ocr', { languages: ['eng', 'deu'] }).ok).toBe(true);
    expect(catalog.checkOptions('ocr', { languages: ['nld'] }).ok).toBe(false);
  });
});

describe('what a worker claims', () => {
  it('restricts claims to the tools whose engines this worker has', async () => {
    const { claimLimits } = await import('../../src/jobs/worker.js');
    const { loadConfig } = await import('../../src/config/config.js');
    const config = loadConfig({});
    const restricted = claimLimits(config, catalog).tools;
    expect(restricted).toContain('merge');
    expect(restricted).toContain('extract-text');
    // Ghostscript is missing here: compress and pdfa jobs are left for workers that have it.
    expect(restricted).not.toContain('compress');
    expect(restricted).not.toContain('pdfa');
    const everything = tools.flatMap((t) => t.engines).map((name) => ({ name, available: true }));
    expect(claimLimits(config, new ToolCatalog(tools, everything)).tools).toBeUndefined();
  });
});
