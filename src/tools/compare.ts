// compare: what changed between two PDFs (old, new), page by page: the words inserted, deleted or
// replaced with their places in both files, pages added, removed or moved, and how much each page
// changed in appearance with the regions that did; as a JSON report, a marked-up copy of the new
// file, or both in a ZIP. The pdfdiff engine does the work in the document sandbox.
import { type Static, Type } from '@sinclair/typebox';
import { QuireError } from '../errors/quire-error.js';
import { engineCallWithProgress } from './framework/engine-call.js';
import { fileStem, outputName, workFile } from './framework/output-name.js';
import { PageSelectionSchema, resolvePageSet } from './framework/page-selection.js';
import { StringEnum } from './framework/schema.js';
import { defineTool, type ToolContext, type ToolOutput } from './framework/types.js';
import { writeZip } from './framework/zip.js';

const options = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(['text', 'visual', 'both'], {
        default: 'both',
        description:
          '`text`: word changes only; `visual`: rendered pixels only (a score and changed regions per page); `both`.',
      }),
    ),
    output: Type.Optional(
      StringEnum(['json', 'pdf', 'both'], {
        default: 'json',
        description:
          '`json`: the report; `pdf`: the new file with the changes marked by annotations; `both`: a ZIP of the two.',
      }),
    ),
    old_pages: Type.Optional(
      PageSelectionSchema(
        'Pages of the old (first) file to compare, as a set; empty or omitted = all pages.',
      ),
    ),
    new_pages: Type.Optional(
      PageSelectionSchema(
        'Pages of the new (second) file to compare, as a set; empty or omitted = all pages.',
      ),
    ),
    dpi: Type.Optional(
      Type.Integer({
        minimum: 36,
        maximum: 300,
        default: 72,
        description: 'Resolution the pages are rendered at for the visual comparison.',
      }),
    ),
    threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        default: 0.1,
        description:
          'Noise threshold: a pixel counts as changed when a colour channel differs by more than this share of full scale.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{}, { mode: 'text', output: 'both', old_pages: '1-2', new_pages: '1-2' }],
  },
);

type Options = Static<typeof options>;

const JSON_TYPE = 'application/json';

/** The 0-based pages of a selection in document order, or undefined for every page. */
function selected(selection: string | undefined, pageCount: number): number[] | undefined {
  if (selection === undefined || selection.trim() === '') return undefined;
  return resolvePageSet(selection, pageCount).map((page) => page - 1);
}

function twoPdfs(ctx: ToolContext<Options>) {
  const [oldPdf, newPdf] = ctx.inputs;
  const [oldCount, newCount] = ctx.pages;
  if (!oldPdf || !newPdf || oldCount === undefined || newCount === undefined)
    throw new QuireError('missing_file', 'compare needs two PDFs: the old version, then the new');
  return { oldPdf, newPdf, oldCount, newCount };
}

export const compareTool = defineTool({
  name: 'compare',
  group: 'Forms, redaction and Office',
  keywords: ['diff', 'changes', 'versions', 'redline', 'what changed'],
  title: 'Compare two PDFs',
  description:
    'Compares two versions of a PDF (old first, new second) page by page: words inserted, deleted and replaced with their positions in both files, pages added, removed and moved, and a visual difference score with the changed regions per page; as a JSON report, the new file with the changes marked, or both.',
  inputs: { minFiles: 2, maxFiles: 2, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  // The report holds the files' words and the marked copy is a new file: neither is encrypted again.
  encryption: 'drops',
  output: { contentType: JSON_TYPE },
  engines: ['qpdf', 'pdfdiff'],
  steps: { inspect: 10, compare: 90 },
  async run(ctx): Promise<ToolOutput> {
    const { oldPdf, newPdf, oldCount, newCount } = twoPdfs(ctx);
    const o: Options = ctx.options;
    const output = o.output ?? 'json';
    ctx.progress.step('compare');
    const report = workFile(ctx.workDir, 'compare', 'json');
    const marked = output === 'json' ? undefined : workFile(ctx.workDir, 'marked');
    const oldPages = selected(o.old_pages, oldCount);
    const newPages = selected(o.new_pages, newCount);
    const summary = await ctx.engines.pdfdiff.compare(
      oldPdf.path,
      newPdf.path,
      report,
      {
        ...(oldPages ? { oldPages } : {}),
        ...(newPages ? { newPages } : {}),
        mode: o.mode ?? 'both',
        dpi: o.dpi ?? 72,
        threshold: o.threshold ?? 0.1,
        ...(marked ? { marked } : {}),
      },
      engineCallWithProgress(ctx),
    );
    const facts = { ...summary, mode: o.mode ?? 'both', output };
    const reportName = outputName(newPdf.name, 'compare', 'json');
    const markedName = outputName(newPdf.name, 'compared');
    if (output === 'json') return { path: report, name: reportName, contentType: JSON_TYPE, facts };
    if (output === 'pdf') return { path: marked!, name: markedName, contentType: 'application/pdf', facts };
    const zip = workFile(ctx.workDir, 'compare', 'zip');
    await writeZip(
      [
        { path: report, name: reportName },
        { path: marked!, name: markedName },
      ],
      zip,
      ctx.signal,
    );
    return { path: zip, name: `${fileStem(newPdf.name)}-compare.zip`, contentType: 'application/zip', facts };
  },
});
