// Declares a tagged PDF as PDF/UA-1 for engines that tag but do not identify (Chromium): an XMP
// metadata stream on the catalog with the PDF/UA identification schema (ISO 14289-1, 5: `pdfuaid:part`)
// and the document's title as dc:title (7.1: the title is in the XMP metadata), written with qpdf.
// It claims only what the engine's tags make true; `validate` is how a caller checks the claim.
import { writeFile } from 'node:fs/promises';
import type { Engines } from '../../engines/index.js';
import type { QpdfCall } from '../../engines/qpdf/qpdf.js';
import { workFile } from '../framework/output-name.js';

type Dict = Record<string, unknown>;
type QpdfObjects = { qpdf: [{ maxobjectid: number }, Record<string, { value?: unknown }>] };

const escapeXml = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** The XMP packet: the PDF/UA part, and the title when the document has one. */
export function pdfuaXmp(title: string | undefined): string {
  const dcTitle =
    title === undefined
      ? ''
      : `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(title)}</rdf:li></rdf:Alt></dc:title>`;
  return [
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/" xmlns:dc="http://purl.org/dc/elements/1.1/">',
    `<pdfuaid:part>1</pdfuaid:part>${dcTitle}`,
    '</rdf:Description></rdf:RDF></x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

/** A qpdf JSON v2 string value (`u:` text) as text; anything else (binary `b:`) is no usable title. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith('u:') ? value.slice(2) : undefined;
}

/** Writes `output`: `input` with the PDF/UA-1 XMP on its catalog (replacing any metadata stream there). */
export async function identifyPdfua(
  qpdf: Engines['qpdf'],
  input: string,
  output: string,
  call: QpdfCall,
): Promise<void> {
  const read = async (ids: string[]) => (await qpdf.json(input, ['qpdf'], call, ids)) as QpdfObjects;
  const [header, objects] = (await read(['trailer'])).qpdf;
  const trailer = objects.trailer?.value as Dict | undefined;
  const root = trailer?.['/Root'];
  if (typeof root !== 'string') throw new Error('the PDF has no catalog');
  const info = typeof trailer?.['/Info'] === 'string' ? (trailer['/Info'] as string) : undefined;
  const [, found] = (await read(info ? [root, info] : [root])).qpdf;
  const catalog = (found[`obj:${root}`]?.value ?? {}) as Dict;
  const title = info ? text((found[`obj:${info}`]?.value as Dict | undefined)?.['/Title']) : undefined;
  const metadata = `${header.maxobjectid + 1} 0 R`;
  const xmp = Buffer.from(pdfuaXmp(title?.trim() || undefined), 'utf8').toString('base64');
  const update = {
    qpdf: [
      {
        jsonversion: 2,
        pushedinheritedpageresources: false,
        calledgetallpages: false,
        maxobjectid: header.maxobjectid,
      },
      {
        [`obj:${metadata}`]: { stream: { dict: { '/Type': '/Metadata', '/Subtype': '/XML' }, data: xmp } },
        [`obj:${root}`]: { value: { ...catalog, '/Metadata': metadata } },
      },
    ],
  };
  const updateFile = workFile(call.workDir, 'pdfua', 'json');
  await writeFile(updateFile, JSON.stringify(update), { mode: 0o600 });
  await qpdf.updateFromJson(input, updateFile, output, call);
}
