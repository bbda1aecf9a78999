// A small real input of each type a published tool may accept, so catalogue-wide tests can submit any
// tool: corpus files for PDFs, images and office documents, an inline page for HTML.
import { corpusFile } from './corpus.js';
import type { JsonSchema } from './counter-examples.js';

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
const HTML = { name: 'index.html', data: '<!doctype html><title>t</title><p>Hello</p>' };

/** As many sample inputs as the tool needs at least; a tool accepting none of the samples throws. */
export function inputsFor(tool: PublishedTool): Array<string | typeof HTML> {
  const type = tool.inputs.accepts.find((t) => SAMPLES[t] || t === 'text/html');
  if (!type) throw new Error(`no sample input for ${tool.name} (${tool.inputs.accepts.join(', ')})`);
  const sample = type === 'text/html' ? HTML : SAMPLES[type]!;
  return Array.from({ length: Math.max(1, tool.inputs.min_files) }, () => sample);
}
