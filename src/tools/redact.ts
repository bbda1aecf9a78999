// redact: removes content for real (PyMuPDF/MuPDF redaction) under page areas and wherever given
// texts or regular expressions match: page text, form fields, annotations and every other place a
// text can live in a PDF (docs/tools.md lists them); the result reports counts per page and per
// place, never the removed text.
import { type Static, Type } from '@sinclair/typebox';
import type { FieldError } from '../errors/quire-error.js';
import { QuireError } from '../errors/quire-error.js';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';
import { piiKinds, piiOcr, piiRegion, recognisePages, textlessPages } from './shared/pii.js';

/** Bounds on what one request may ask for; far above any real redaction list. */
const MAX_AREAS = 1_000;
const MAX_TERMS = 100;
const MAX_TERM_LENGTH = 1_000;

const terms = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: MAX_TERM_LENGTH }), {
      maxItems: MAX_TERMS,
      description,
    }),
  );

const options = Type.Object(
  {
    areas: Type.Optional(
      Type.Array(
        Type.Object(
          {
            page: Type.Integer({ minimum: 1, description: 'Page number, from 1.' }),
            rect: Type.Array(Type.Number(), {
              minItems: 4,
              maxItems: 4,
              description: '[x1, y1, x2, y2] in PDF points from the bottom left of the unrotated page.',
            }),
          },
          { additionalProperties: false },
        ),
        { maxItems: MAX_AREAS, description: 'Rectangles whose text, images and drawings are removed.' },
      ),
    ),
    texts: terms('Literal texts removed wherever they occur.'),
    patterns: terms('Regular expressions (Python `re` syntax) removed wherever they match.'),
    detect: Type.Optional(
      piiKinds(
        'Kinds of personal data found (as detect-pii finds them) and removed like `texts`, everywhere they occur.',
      ),
    ),
    region: piiRegion(),
    ocr: piiOcr('off'),
    ignore_case: Type.Optional(
      Type.Boolean({ default: false, description: 'Match `texts` and `patterns` regardless of case.' }),
    ),
    fill: Type.Optional(
      StringEnum(['black', 'none'], {
        default: 'black',
        description: '`black`: removed places are painted black; `none`: left blank.',
      }),
    ),
    max_matches: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        default: 1_000,
        description: 'The job fails (`redaction_matches_exceeded`) when texts and patterns match more often.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'At least one of `areas`, `texts`, `patterns`, `detect`.',
    examples: [
      { texts: ['information'], fill: 'black' },
      { detect: ['email', 'phone', 'iban', 'card', 'ip', 'national_id'], region: 'US' },
      { patterns: ['\\b[0-9]{3}-[0-9]{2}-[0-9]{4}\\b'], ignore_case: false, max_matches: 500 },
      { areas: [{ page: 1, rect: [72, 600, 300, 700] }], fill: 'none' },
    ],
  },
);

type Options = Static<typeof options>;

function checkRequest(o: Options): FieldError[] {
  const errors: FieldError[] = [];
  if (!o.areas?.length && !o.texts?.length && !o.patterns?.length && !o.detect?.length) {
    errors.push({ pointer: '/options', detail: 'needs at least one of areas, texts, patterns, detect' });
  }
  for (const [i, area] of (o.areas ?? []).entries()) {
    const [x1, y1, x2, y2] = area.rect as [number, number, number, number];
    if (!(x1 < x2 && y1 < y2)) {
      errors.push({ pointer: `/options/areas/${i}/rect`, detail: 'needs x1 < x2 and y1 < y2' });
    }
  }
  for (const [i, pattern] of (o.patterns ?? []).entries()) {
    try {
      // The common syntax of JavaScript and Python regular expressions; Python has the last word.
      new RegExp(pattern.replaceAll('(?P<', '(?<'));
    } catch {
      errors.push({ pointer: `/options/patterns/${i}`, detail: 'is not a valid regular expression' });
    }
  }
  return errors;
}

export const redactTool = defineTool({
  name: 'redact',
  title: 'Redact',
  group: 'Forms, redaction and Office',
  keywords: ['black out', 'censor', 'hide text', 'anonymize'],
  description:
    'Removes text, images and drawings for real under page areas and wherever given texts or regular expressions match: in the page text, form fields, annotations, metadata, bookmarks, actions, scripts, attachments, page labels, destinations and tagged structure; optionally paints the places black.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  // What is being hidden must not outlive the job in its record, views or logs.
  secretOptions: ['texts', 'patterns'],
  checkRequest,
  output: { contentType: 'application/pdf' },
  // ocrmypdf only for `ocr: auto` on a document with scanned pages: without it, that job fails with
  // engine_unavailable and redact stays available.
  engines: ['qpdf', 'pymupdf', 'poppler'],
  steps: { inspect: 10, ocr: 40, redact: 50 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const o = ctx.options;
    const outside = (o.areas ?? []).find((a) => a.page > pageCount);
    if (outside) {
      throw new QuireError(
        'page_range_invalid',
        `An area is on page ${outside.page}; the document has ${pageCount}`,
      );
    }
    // Scanned pages get a text layer first, whose matches MuPDF then removes with the pixels under them.
    const scanned = o.ocr === 'auto' ? await textlessPages(ctx, input.path, pageCount) : [];
    let source = input.path;
    if (scanned.length > 0) {
      ctx.progress.step('ocr');
      source = await recognisePages(ctx, input.path, pageCount);
    }
    ctx.progress.step('redact');
    const output = workFile(ctx.workDir, 'redacted');
    const report = await ctx.engines.pymupdf.redact(
      source,
      output,
      {
        areas: (o.areas ?? []).map((a) => ({
          page: a.page,
          rect: a.rect as [number, number, number, number],
        })),
        texts: o.texts ?? [],
        patterns: o.patterns ?? [],
        ignoreCase: o.ignore_case ?? false,
        fill: o.fill ?? 'black',
        maxMatches: o.max_matches ?? 1_000,
        detect: o.detect ?? [],
        region: o.region ?? 'US',
      },
      engineCall(ctx),
    );
    const sum = (key: 'text_matches' | 'areas' | 'images' | 'annotations' | 'fields') =>
      report.pages.reduce((n, p) => n + p[key], 0);
    return {
      path: output,
      name: outputName(input.name, 'redacted'),
      contentType: 'application/pdf',
      facts: {
        pages: pageCount,
        text_matches: sum('text_matches'),
        areas: sum('areas'),
        images: sum('images'),
        annotations: sum('annotations'),
        fields: sum('fields'),
        metadata_entries: report.metadata_entries,
        removed: report.removed,
        rasterized_pages: report.pages.filter((p) => p.rasterized).map((p) => p.page),
        redacted_pages: report.pages,
        // Counts per kind of personal data in the page text (with `detect`), never the values.
        ...(o.detect?.length ? { detected: report.detected } : {}),
        ...(o.ocr === 'auto' ? { ocr_pages: scanned } : {}),
      },
    };
  },
});
