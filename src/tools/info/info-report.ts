// Assembles the `info` tool's JSON report from qpdf JSON and poppler facts. Pure: no I/O.
import type { FontEntry, ImageEntry, PdfinfoFacts } from '../../engines/poppler/poppler.js';

/** The parts of `qpdf --json=2` the report reads (qpdf manual, "qpdf JSON", version 2). */
export interface QpdfInfoJson {
  encrypt?: {
    encrypted: boolean;
    userpasswordmatched: boolean;
    ownerpasswordmatched: boolean;
    capabilities: Record<string, boolean>;
    parameters: { bits: number; method: string; R: number; V: number };
  };
  outlines?: unknown[];
  attachments?: Record<string, unknown>;
  acroform?: { hasacroform: boolean; fields: unknown[] };
}

const METADATA_FIELDS = {
  title: 'Title',
  author: 'Author',
  subject: 'Subject',
  keywords: 'Keywords',
  creator: 'Creator',
  producer: 'Producer',
  creation_date: 'CreationDate',
  modification_date: 'ModDate',
} as const;

function metadata(fields: Record<string, string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [key, field] of Object.entries(METADATA_FIELDS)) {
    const value = fields[field];
    out[key] = value === undefined || value === '' ? null : value;
  }
  return out;
}

function encryption(json: QpdfInfoJson) {
  const enc = json.encrypt;
  if (!enc?.encrypted) return { encrypted: false };
  const caps = enc.capabilities;
  const method = enc.parameters.method === 'AESv3' ? 'AES' : enc.parameters.method.replace(/v\d$/, '');
  return {
    encrypted: true,
    algorithm: `${method}-${enc.parameters.bits}`,
    // We only get here when the file opens without a password (owner-only protection).
    user_password_required: false,
    permissions: {
      print: caps.printlow ?? true,
      print_high_res: caps.printhigh ?? true,
      modify: caps.modifyother ?? true,
      copy: caps.extract ?? true,
      annotate: caps.modifyannotations ?? true,
      fill_forms: caps.modifyforms ?? true,
      accessibility: caps.accessibility ?? true,
      assemble: caps.modifyassembly ?? true,
    },
  };
}

/** Distinct image XObjects; inline images (object `0 0`) each count once per occurrence. */
function imageCount(images: readonly ImageEntry[]): number {
  const objects = new Set<string>();
  let inline = 0;
  for (const image of images) {
    if (image.type !== 'image') continue;
    if (image.object === '0 0') inline++;
    else objects.add(image.object);
  }
  return objects.size + inline;
}

function uniqueFonts(fonts: readonly FontEntry[]): FontEntry[] {
  const seen = new Map<string, FontEntry>();
  for (const font of fonts) seen.set(`${font.name}\u0000${font.type}\u0000${font.embedded}`, font);
  return [...seen.values()];
}

export function buildInfoReport(
  pageCount: number,
  pdfinfo: PdfinfoFacts,
  json: QpdfInfoJson,
  fonts: readonly FontEntry[],
  images: readonly ImageEntry[],
) {
  const f = pdfinfo.fields;
  // pdfinfo says "AcroForm" for any /AcroForm dictionary, even an empty one that many producers
  // leave behind; a form is only there when it has fields (or is XFA, whose fields live in XML).
  const fieldCount = json.acroform?.fields.length ?? 0;
  const form = f.Form === 'XFA' ? 'XFA' : fieldCount > 0 ? 'AcroForm' : 'none';
  return {
    pages: pageCount,
    pdf_version: f['PDF version'] ?? null,
    page_sizes: pdfinfo.pages.map((p) => ({
      page: p.page,
      width_pt: p.width_pt,
      height_pt: p.height_pt,
      ...(p.paper ? { paper: p.paper } : {}),
      rotation: p.rotation,
    })),
    encryption: encryption(json),
    metadata: metadata(f),
    linearized: f.Optimized === 'yes',
    tagged: f.Tagged === 'yes',
    has_forms: form !== 'none',
    form_type: form === 'none' ? null : form,
    form_field_count: fieldCount,
    has_javascript: f.JavaScript === 'yes',
    has_attachments: Object.keys(json.attachments ?? {}).length > 0,
    attachment_count: Object.keys(json.attachments ?? {}).length,
    has_outlines: (json.outlines ?? []).length > 0,
    fonts: uniqueFonts(fonts),
    image_count: imageCount(images),
  };
}
