// metadata: sets or clears the document information fields (title, author, subject, keywords,
// creator, producer) through a qpdf JSON update of the trailer's /Info dictionary.
import { writeFile } from 'node:fs/promises';
import { type Static, Type } from '@sinclair/typebox';
import type { QpdfCall } from '../engines/qpdf/qpdf.js';
import { engineCall, engineCallWithProgress } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import type { ToolContext } from './framework/types.js';
import { defineTool } from './framework/types.js';

/** Option name → /Info key (PDF 32000-1, 14.3.3, "Document Information Dictionary"). */
const FIELDS = {
  title: '/Title',
  author: '/Author',
  subject: '/Subject',
  keywords: '/Keywords',
  creator: '/Creator',
  producer: '/Producer',
} as const;

type Field = keyof typeof FIELDS;

/** Long enough for any real title or keyword list; bounds the JSON update we build. */
const MAX_VALUE_LENGTH = 4096;

const field = (description: string) =>
  Type.Optional(Type.String({ maxLength: MAX_VALUE_LENGTH, description: `${description} "" clears it.` }));

const options = Type.Object(
  {
    title: field('Document title.'),
    author: field('Author.'),
    subject: field('Subject.'),
    keywords: field('Keywords, as one string (commonly comma-separated).'),
    creator: field('Application that created the original document.'),
    producer: field('Application that produced the PDF.'),
  },
  {
    additionalProperties: false,
    description: 'Fields left out are kept as they are.',
    minProperties: 1,
    examples: [
      { title: 'Annual report 2026', author: 'Finance team', keywords: 'report, 2026' },
      { producer: '' },
    ],
  },
);

type Options = Static<typeof options>;
type Dict = Record<string, unknown>;
type QpdfObjects = { qpdf: [{ maxobjectid: number }, Record<string, { value?: unknown }>] };

/** The new /Info: given fields set (qpdf's `u:` = a Unicode text string), `""` removes the key. */
export function updatedInfo(current: Dict, opts: Options): Dict {
  const info: Dict = { ...current };
  for (const [name, key] of Object.entries(FIELDS) as [Field, string][]) {
    const value = opts[name];
    if (value === undefined) continue;
    if (value === '') delete info[key];
    else info[key] = `u:${value}`;
  }
  return info;
}

async function objectValue(ctx: ToolContext<Options>, input: string, id: string, call: QpdfCall) {
  const json = (await ctx.engines.qpdf.json(input, ['qpdf'], call, [id])) as QpdfObjects;
  const key = id === 'trailer' ? 'trailer' : `obj:${id}`;
  return { value: json.qpdf[1][key]?.value as Dict | undefined, maxObjectId: json.qpdf[0].maxobjectid };
}

/** A qpdf JSON v2 update replacing /Info, or adding one (and pointing the trailer at it). */
async function infoUpdate(ctx: ToolContext<Options>, input: string): Promise<unknown> {
  const call = engineCall(ctx);
  const trailer = await objectValue(ctx, input, 'trailer', call);
  const infoRef = trailer.value?.['/Info'];
  const objects: Record<string, { value: unknown }> = {};
  if (typeof infoRef === 'string') {
    const current = await objectValue(ctx, input, infoRef, call);
    objects[`obj:${infoRef}`] = { value: updatedInfo(current.value ?? {}, ctx.options) };
  } else {
    const ref = `${trailer.maxObjectId + 1} 0 R`;
    objects[`obj:${ref}`] = { value: updatedInfo({}, ctx.options) };
    // Only what a trailer means: qpdf writes /Size, /Prev and the xref-stream keys itself.
    const { '/Root': root, '/ID': id } = trailer.value ?? {};
    objects.trailer = { value: { '/Root': root, ...(id ? { '/ID': id } : {}), '/Info': ref } };
  }
  const header = {
    jsonversion: 2,
    pushedinheritedpageresources: false,
    calledgetallpages: false,
    maxobjectid: trailer.maxObjectId,
  };
  return { qpdf: [header, objects] };
}

export const metadataTool = defineTool({
  name: 'metadata',
  title: 'Edit document properties',
  group: 'Pages and structure',
  keywords: ['properties', 'title', 'author', 'info dictionary'],
  description:
    'Sets or clears the title, author, subject, keywords, creator and producer in the document information.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 20, write: 80 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const update = workFile(ctx.workDir, 'info', 'json');
    await writeFile(update, JSON.stringify(await infoUpdate(ctx, input.path)), { mode: 0o600 });

    ctx.progress.step('write');
    const output = workFile(ctx.workDir, 'metadata');
    await ctx.engines.qpdf.updateFromJson(input.path, update, output, engineCallWithProgress(ctx));
    const changed = Object.keys(FIELDS).filter((name) => ctx.options[name as Field] !== undefined);
    return {
      path: output,
      name: outputName(input.name, 'metadata'),
      contentType: 'application/pdf',
      facts: { pages: pageCount, changed },
    };
  },
});
