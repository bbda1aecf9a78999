// Inputs for the heavy-engine tests, made on the spot with real programs: a text PDF (Ghostscript),
// its scan (pdftoppm, Ghostscript's image-only PDF device), office documents written by LibreOffice itself, and a site.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PrintOptions } from '../../src/engines/chromium/chromium.js';

/** A4 with 10 mm margins, printed as soon as the page has loaded. */
export const A4_PRINT: PrintOptions = {
  pageSize: 'a4',
  landscape: false,
  marginMm: 10,
  printBackground: true,
  waitMs: 0,
};

export const fixtureDir = mkdtempSync(path.join(os.tmpdir(), 'quire-heavy-'));
const at = (name: string) => path.join(fixtureDir, name);

/** A one-page PDF with real text: `lines` in 28-pt Helvetica, one under the other. */
export function textPdf(name: string, lines: string[]): string {
  const shows = lines.map((l, i) => `72 ${720 - i * 48} moveto (${l}) show`).join(' ');
  execFileSync('gs', [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfwrite',
    `-sOutputFile=${at(name)}`,
    '-c',
    `/Helvetica findfont 28 scalefont setfont ${shows} showpage`,
  ]);
  return at(name);
}

/** The page rendered at 200 dpi as a PNG: pixels only, no text. */
export function scanPng(pdf: string, name: string): string {
  const stem = at(name.replace(/\.png$/, ''));
  execFileSync('pdftoppm', ['-r', '200', '-gray', '-png', '-singlefile', pdf, stem]);
  return `${stem}.png`;
}

/** The page as an image-only PDF at 200 dpi (what a scanner produces): Ghostscript's pdfimage8. */
export function imagePdf(pdf: string, name: string): string {
  execFileSync('gs', [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfimage8',
    '-r200',
    `-sOutputFile=${at(name)}`,
    pdf,
  ]);
  return at(name);
}

export function concatPdfs(files: string[], name: string): string {
  execFileSync('qpdf', ['--empty', '--pages', ...files, '--', at(name)]);
  return at(name);
}

const FODP = (text: string) => `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.presentation">
<office:body><office:presentation><draw:page draw:name="One">
<draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="4cm"><draw:text-box><text:p>${text}</text:p></draw:text-box></draw:frame>
</draw:page></office:presentation></office:body></office:document>`;

/**
 * docx, xlsx and pptx written by LibreOffice from plain sources (txt, csv, flat ODP), each holding
 * `marker` so the test can find it in the converted PDF.
 */
export function officeDocuments(marker: string): { docx: string; xlsx: string; pptx: string } {
  writeFileSync(at('doc.txt'), `Document ${marker}\nSecond paragraph.\n`);
  writeFileSync(at('sheet.csv'), `name,value\nSheet ${marker},42\nother,7\n`);
  writeFileSync(at('slides.fodp'), FODP(`Slide ${marker}`));
  const profile = `-env:UserInstallation=file://${at('lo-profile')}`;
  const convert = (format: string, file: string) =>
    execFileSync(
      'soffice',
      [profile, '--headless', '--convert-to', format, '--outdir', fixtureDir, at(file)],
      {
        stdio: 'ignore',
        timeout: 120_000,
      },
    );
  convert('docx:MS Word 2007 XML', 'doc.txt');
  convert('xlsx:Calc MS Excel 2007 XML', 'sheet.csv');
  convert('pptx:Impress MS PowerPoint 2007 XML', 'slides.fodp');
  return { docx: at('doc.docx'), xlsx: at('sheet.xlsx'), pptx: at('slides.pptx') };
}

/**
 * A CSV LibreOffice needs minutes for (Calc imports then lays out ~20,000 pages): from the
 * service's side indistinguishable from a document that hangs it.
 */
export function hangingCsv(): string {
  const row = 'aaaaaaaa,bbbbbbbb,cccccccc,dddddddd,eeeeeeee,ffffffff,gggggggg,hhhhhhhh\n';
  writeFileSync(at('hang.csv'), row.repeat(1_000_000));
  return at('hang.csv');
}

/** A page that is accessible in itself: language, title, headings, a list, a table with headers, alt text. */
export const ACCESSIBLE_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quarterly report</title></head>
<body>
<h1>Quarterly report</h1>
<p>This page is printed to a tagged PDF: a heading, a paragraph, a list, a table and an image with alternative text.</p>
<h2>Highlights</h2>
<ul><li>Revenue grew</li><li>Costs fell</li></ul>
<table><caption>Figures</caption>
<thead><tr><th scope="col">Quarter</th><th scope="col">Revenue</th></tr></thead>
<tbody><tr><td>Q1</td><td>100</td></tr><tr><td>Q2</td><td>120</td></tr></tbody></table>
<p><img alt="A blue square" width="40" height="40" src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='40' height='40'%3E%3Crect width='40' height='40' fill='blue'/%3E%3C/svg%3E"></p>
</body></html>
`;

const ACCESSIBLE_FODT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:meta><dc:title>Quarterly report</dc:title><dc:language>en-GB</dc:language></office:meta>
<office:styles><style:default-style style:family="paragraph"><style:text-properties fo:language="en" fo:country="GB"/></style:default-style></office:styles>
<office:body><office:text>
<text:h text:outline-level="1">Quarterly report</text:h>
<text:p>This document is converted to a tagged PDF: a heading, a paragraph, a list and a table.</text:p>
<text:h text:outline-level="2">Highlights</text:h>
<text:list><text:list-item><text:p>Revenue grew</text:p></text:list-item><text:list-item><text:p>Costs fell</text:p></text:list-item></text:list>
<table:table table:name="Figures"><table:table-column table:number-columns-repeated="2"/>
<table:table-header-rows><table:table-row><table:table-cell><text:p>Quarter</text:p></table:table-cell><table:table-cell><text:p>Revenue</text:p></table:table-cell></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell><text:p>Q1</text:p></table:table-cell><table:table-cell><text:p>100</text:p></table:table-cell></table:table-row>
</table:table>
</office:text></office:body></office:document>
`;

/** A DOCX with a title, language, headings, a list and a table with a header row (LibreOffice writes it from flat ODT). */
export function accessibleDocx(): string {
  writeFileSync(at('report.fodt'), ACCESSIBLE_FODT);
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${at('lo-profile')}`,
      '--headless',
      '--convert-to',
      'docx:MS Word 2007 XML',
      '--outdir',
      fixtureDir,
      at('report.fodt'),
    ],
    { stdio: 'ignore', timeout: 120_000 },
  );
  return at('report.docx');
}
