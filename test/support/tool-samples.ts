// A small real input of each type a published tool may accept, so catalogue-wide tests can submit any
// tool: corpus files for PDFs, images and office documents, an inline page for HTML; and real content
// for options that carry a file (base64 of a declared media type), which no published example can.
import type { PdfFeature } from '../../src/tools/framework/types.js';
import { tools } from '../../src/tools/registry.js';
import { corpusFile } from './corpus.js';
import type { JsonSchema } from './counter-examples.js';
import { makeTestPki } from './test-pki.js';

/** A tool as `GET /api/v1/tools` publishes it (the fields these tests read). */
export interface PublishedTool {
  name: string;
  available: boolean;
  inputs: { min_files: number; accepts: string[] };
  options_schema: JsonSchema;
}

const SAMPLES: Record<string, string> = {
  'application/pdf': corpusFile('pypdf-samples__pdflatex-4-pages.pdf'),
  'image/png': corpusFile('ocrmypdf__typewriter.png'),
  'image/jpeg': corpusFile('ocrmypdf__baiona_cmyk.jpg'),
  'image/tiff': corpusFile('tesseract__phototest.tif'),
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document':
    corpusFile('gotenberg__page_1.docx'),
  'application/vnd.oasis.opendocument.text': corpusFile('pypdf-samples__libreoffice-form.odt'),
  'text/plain': corpusFile('tesseract__phototest.gt.txt'),
};
/** A sample PDF holding each feature a tool may declare it needs (`inputs.holds`). */
const PDF_SAMPLES: Record<PdfFeature, string> = {
  // Its field names (TextField, Checkbox, …) are the ones fill-form's published examples use.
  acroform: corpusFile('pdfbox__AcroFormsBasicFields.pdf'),
};
const HTML = { name: 'index.html', data: '<!doctype html><title>t</title><p>Hello</p>' };

/**
 * The sample PDF for a tool: one holding what its definition declares it needs, else the plain one.
 * The catalogue does not publish `holds`, so it is read from the definition of the same name.
 */
function pdfSample(toolName: string): string {
  const holds = tools.find((t) => t.name === toolName)?.inputs.holds ?? [];
  if (holds.length > 1) throw new Error(`no sample PDF holds all of ${holds.join(', ')} (${toolName})`);
  return holds[0] ? PDF_SAMPLES[holds[0]] : SAMPLES['application/pdf']!;
}

/** As many sample inputs as the tool needs at least; a tool accepting none of the samples throws. */
export function inputsFor(tool: PublishedTool): Array<string | typeof HTML> {
  const type = tool.inputs.accepts.find((t) => SAMPLES[t] || t === 'text/html');
  if (!type) throw new Error(`no sample input for ${tool.name} (${tool.inputs.accepts.join(', ')})`);
  const sample =
    type === 'text/html' ? HTML : type === 'application/pdf' ? pdfSample(tool.name) : SAMPLES[type]!;
  return Array.from({ length: Math.max(1, tool.inputs.min_files) }, () => sample);
}

/**
 * The password published examples give for a PKCS#12 option: the samples made here are encrypted with
 * it, so an example with a sample bundle in place of its placeholder signs for real.
 */
export const EXAMPLE_PKCS12_PASSWORD = 'example-password';

/** Base64 content of each media type an option may declare (`contentMediaType`), made once per run. */
const CONTENT_SAMPLES: Record<string, () => Promise<string>> = {
  'application/x-pkcs12': async () => (await makeTestPki(EXAMPLE_PKCS12_PASSWORD)).bundleBase64,
};
const made = new Map<string, Promise<string>>();

/**
 * `example` with each option whose schema declares a base64 `contentMediaType` of a known sample
 * replaced by that sample: published examples cannot hold a real key, the test run makes one.
 */
export async function sampleOptions(
  tool: PublishedTool,
  example: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const properties = (tool.options_schema.properties ?? {}) as Record<string, JsonSchema>;
  const options = { ...example };
  for (const [name, schema] of Object.entries(properties)) {
    const type = schema.contentMediaType as string | undefined;
    const make = type ? CONTENT_SAMPLES[type] : undefined;
    if (!make || !(name in options) || schema.contentEncoding !== 'base64') continue;
    if (!made.has(type!)) made.set(type!, make());
    options[name] = await made.get(type!)!;
  }
  return options;
}
