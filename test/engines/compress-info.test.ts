// Engine tier: compress never grows a file and shrinks image-heavy ones; info reports real facts.
import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compressTool } from '../../src/tools/compress/tool.js';
import { infoTool } from '../../src/tools/info/tool.js';
import { checkPasses, pageCount } from '../support/pdf-checks.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const runs = useToolRuns();

const { run } = runs;

describe('compress', () => {
  const SCAN = 'ocrmypdf__c02-22.pdf'; // one scanned colour page, ~185 KB

  for (const level of ['lossless', 'low', 'medium', 'high'] as const) {
    it(`level ${level} never returns a larger file and keeps every page`, async () => {
      const file = 'pypdf-samples__pdflatex-4-pages.pdf';
      const { output } = await run(compressTool, [file], { level });
      const inputSize = (await stat(corpus(file))).size;
      expect((await stat(output.path)).size).toBeLessThanOrEqual(inputSize);
      expect(output.facts).toMatchObject({
        input_size: inputSize,
        output_size: (await stat(output.path)).size,
      });
      expect(await pageCount(output.path)).toBe(4);
    });
  }

  it('the high level really shrinks an image-heavy scan', async () => {
    const { output, emitted } = await run(compressTool, [SCAN], { level: 'high' });
    const inputSize = (await stat(corpus(SCAN))).size;
    expect(output.facts).toMatchObject({ method: 'lossy', reduced: true });
    expect((await stat(output.path)).size).toBeLessThan(inputSize * 0.8);
    expect(await checkPasses(output.path)).toBe(true);
    expect(emitted.map((p) => p.stage)).toContain('lossy');
  });

  it('says so when nothing could be gained', async () => {
    const { output } = await run(compressTool, ['pdf20ex__Simple_PDF_2.0_file.pdf'], { level: 'lossless' });
    expect(output.facts).toHaveProperty('reduced');
    expect(output.facts!.output_size as number).toBeLessThanOrEqual(output.facts!.input_size as number);
  });
});

describe('info', () => {
  it('reports pages, sizes, rotation, forms, JavaScript and fonts', async () => {
    const { output } = await run(infoTool, ['pdfbox__AcroFormsBasicFields.pdf'], {});
    const report = JSON.parse(await readFile(output.path, 'utf8'));
    expect(report).toMatchObject({
      pages: 1,
      pdf_version: '1.6',
      has_forms: true,
      has_javascript: true,
      has_outlines: true,
      encryption: { encrypted: false },
      metadata: { title: 'AcroFormsBasicFieldsTest' },
    });
    expect(report.page_sizes[0]).toMatchObject({ width_pt: 612, height_pt: 792, rotation: 0 });
    expect(report.fonts.length).toBeGreaterThan(0);
  });

  it('reports rotations, owner-only encryption and images', async () => {
    const rotated = JSON.parse(
      await readFile((await run(infoTool, ['pypdf-samples__habibi-rotated.pdf'], {})).output.path, 'utf8'),
    );
    expect(rotated.page_sizes.map((p: { rotation: number }) => p.rotation)).toEqual([90, 180, 270, 0]);
    const owner = JSON.parse(
      await readFile((await run(infoTool, ['qpdf__enc-XI-R6-V5-O-master.pdf'], {})).output.path, 'utf8'),
    );
    expect(owner.encryption).toMatchObject({
      encrypted: true,
      algorithm: 'AES-256',
      permissions: { print: false },
    });
    const scan = JSON.parse(
      await readFile((await run(infoTool, ['pdfcpu__HL1396.pdf'], {})).output.path, 'utf8'),
    );
    expect(scan.image_count).toBe(18);
    const attach = JSON.parse(
      await readFile((await run(infoTool, ['pypdf-samples__with-attachment.pdf'], {})).output.path, 'utf8'),
    );
    expect(attach.has_attachments).toBe(true);
  });
});
