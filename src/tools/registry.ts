// The list of tools this server offers; the catalogue, validation and OpenAPI are derived from it.
import { compareTool } from './compare.js';
import { compressTool } from './compress/tool.js';
import { detectPiiTool } from './detect-pii.js';
import { extractImagesTool } from './extract-images.js';
import { extractTextTool } from './extract-text.js';
import { fillFormTool } from './fill-form/tool.js';
import { flattenTool } from './flatten/tool.js';
import { formFieldsTool } from './form-fields.js';
import type { AnyToolDefinition } from './framework/types.js';
import { htmlToPdfTool } from './html-to-pdf/tool.js';
import { imagesToPdfTool } from './images-to-pdf/tool.js';
import { infoTool } from './info/tool.js';
import { linearizeTool } from './linearize.js';
import { mergeTool } from './merge.js';
import { metadataTool } from './metadata.js';
import { ocrTool } from './ocr.js';
import { officeToPdfTool } from './office-to-pdf.js';
import { pageNumbersTool } from './page-numbers.js';
import { pagesTool } from './pages.js';
import { pdfToImagesTool } from './pdf-to-images/tool.js';
import { pdfToMarkdownTool } from './pdf-to-markdown/tool.js';
import { pdfToOfficeTool } from './pdf-to-office.js';
import { pdfaTool } from './pdfa.js';
import { protectTool } from './protect.js';
import { redactTool } from './redact.js';
import { repairTool } from './repair.js';
import { rotateTool } from './rotate.js';
import { signTool } from './sign.js';
import { splitTool } from './split.js';
import { unlockTool } from './unlock.js';
import { validateTool } from './validate.js';
import { verifySignaturesTool } from './verify-signatures.js';
import { watermarkTool } from './watermark.js';

export const tools: readonly AnyToolDefinition[] = [
  mergeTool,
  splitTool,
  rotateTool,
  compressTool,
  protectTool,
  unlockTool,
  infoTool,
  pagesTool,
  linearizeTool,
  repairTool,
  flattenTool,
  metadataTool,
  watermarkTool,
  pageNumbersTool,
  pdfToImagesTool,
  imagesToPdfTool,
  extractTextTool,
  extractImagesTool,
  ocrTool,
  pdfaTool,
  validateTool,
  officeToPdfTool,
  htmlToPdfTool,
  signTool,
  verifySignaturesTool,
  formFieldsTool,
  fillFormTool,
  redactTool,
  detectPiiTool,
  pdfToOfficeTool,
  compareTool,
  pdfToMarkdownTool,
];
