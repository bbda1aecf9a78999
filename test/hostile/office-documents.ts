// Hostile office documents built in memory (yazl + strings): each carries a visible marker, so a
// test can tell a conversion that ran from one that failed, plus one way of pulling in content
// from outside the document (external image links, INCLUDETEXT/INCLUDEPICTURE fields, linked
// sheets, web-service formulas).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { zipOf } from '../support/pdf.js';

export const VISIBLE = 'Visible marker Cassowary2';

const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const PIC = 'http://schemas.openxmlformats.org/drawingml/2006/picture';
const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const REL_IMAGE = `${R}/image`;
const REL_DOC = `${R}/officeDocument`;

const contentTypes = (main: string, mainType: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/${main}" ContentType="${mainType}"/></Types>`;

const rels = (list: { id: string; type: string; target: string; external?: boolean }[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list
    .map(
      (r) =>
        `<Relationship Id="${r.id}" Type="${r.type}" Target="${esc(r.target)}"${r.external ? ' TargetMode="External"' : ''}/>`,
    )
    .join('')}</Relationships>`;

const para = (text: string) => `<w:p><w:r><w:t>${esc(text)}</w:t></w:r></w:p>`;

/** A picture whose bytes are not in the package: `<a:blip r:link>` to an external target. */
const linkedPicture = `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="3000000" cy="3000000"/><wp:docPr id="1" name="P"/>
<a:graphic><a:graphicData uri="${PIC}"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="x"/><pic:cNvPicPr/></pic:nvPicPr>
<pic:blipFill><a:blip r:link="rIdLinked"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>
<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="3000000" cy="3000000"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr>
</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;

/** A complex field (INCLUDETEXT, INCLUDEPICTURE, LINK …) with a placeholder result. */
const field = (instruction: string) =>
  `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> ${esc(instruction)} </w:instrText></w:r>` +
  `<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>placeholder</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;

function docx(body: string, linkTarget?: string): Promise<Buffer> {
  const docRels = linkTarget
    ? rels([{ id: 'rIdLinked', type: REL_IMAGE, target: linkTarget, external: true }])
    : rels([]);
  return zipOf({
    '[Content_Types].xml': contentTypes(
      'word/document.xml',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    ),
    '_rels/.rels': rels([{ id: 'rId1', type: REL_DOC, target: 'word/document.xml' }]),
    'word/_rels/document.xml.rels': docRels,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?>
<w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:a="${A}" xmlns:pic="${PIC}" xmlns:wp="${WP}"><w:body>${para(VISIBLE)}${body}</w:body></w:document>`,
  });
}

/** docx showing an image that is only linked (`TargetMode="External"`), never embedded. */
export const docxLinkedImage = (target: string) => docx(linkedPicture, target);

/** docx with plain paragraphs after the marker. */
export const docxParagraphs = (texts: readonly string[]) => docx(texts.map(para).join(''));

/** docx with a field that pulls in a file when fields are updated. */
export const docxField = (instruction: string) => docx(field(instruction));

/** pptx whose one slide shows a linked (external) picture. */
export function pptxLinkedImage(target: string): Promise<Buffer> {
  const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
  const slide = `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:p="${P}" xmlns:a="${A}" xmlns:r="${R}"><p:cSld><p:spTree>
<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>
<p:sp><p:nvSpPr><p:cNvPr id="2" name="T"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="500000" y="300000"/><a:ext cx="8000000" cy="600000"/></a:xfrm><a:prstGeom prst="rect"/></p:spPr>
<p:txBody><a:bodyPr/><a:p><a:r><a:t>${VISIBLE}</a:t></a:r></a:p></p:txBody></p:sp>
<p:pic><p:nvPicPr><p:cNvPr id="3" name="L"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:link="rIdLinked"/><a:stretch><a:fillRect/></a:stretch></p:blipFill>
<p:spPr><a:xfrm><a:off x="500000" y="1200000"/><a:ext cx="4000000" cy="4000000"/></a:xfrm><a:prstGeom prst="rect"/></p:spPr></p:pic>
</p:spTree></p:cSld></p:sld>`;
  const presentation = `<?xml version="1.0" encoding="UTF-8"?><p:presentation xmlns:p="${P}" xmlns:r="${R}">
<p:sldIdLst><p:sldId id="256" r:id="rIdSlide"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`;
  const slideType = 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml';
  return zipOf({
    '[Content_Types].xml': contentTypes(
      'ppt/presentation.xml',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
    ).replace('</Types>', `<Override PartName="/ppt/slides/slide1.xml" ContentType="${slideType}"/></Types>`),
    '_rels/.rels': rels([{ id: 'rId1', type: REL_DOC, target: 'ppt/presentation.xml' }]),
    'ppt/presentation.xml': presentation,
    'ppt/_rels/presentation.xml.rels': rels([
      { id: 'rIdSlide', type: `${R}/slide`, target: 'slides/slide1.xml' },
    ]),
    'ppt/slides/slide1.xml': slide,
    'ppt/slides/_rels/slide1.xml.rels': rels([{ id: 'rIdLinked', type: REL_IMAGE, target, external: true }]),
  });
}

/** xlsx whose cell asks LibreOffice to fetch a URL (WEBSERVICE) when formulas are recalculated. */
export function xlsxWebService(url: string): Promise<Buffer> {
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${S}"><sheetData>
<row r="1"><c r="A1" t="inlineStr"><is><t>${VISIBLE}</t></is></c></row>
<row r="2"><c r="A2" t="str"><f>WEBSERVICE("${esc(url)}")</f><v>cached</v></c></row>
</sheetData></worksheet>`;
  const workbook = `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${S}" xmlns:r="${R}"><sheets><sheet name="S" sheetId="1" r:id="rIdSheet"/></sheets></workbook>`;
  const sheetType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';
  return zipOf({
    '[Content_Types].xml': contentTypes(
      'xl/workbook.xml',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
    ).replace(
      '</Types>',
      `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${sheetType}"/></Types>`,
    ),
    '_rels/.rels': rels([{ id: 'rId1', type: REL_DOC, target: 'xl/workbook.xml' }]),
    'xl/workbook.xml': workbook,
    'xl/_rels/workbook.xml.rels': rels([
      { id: 'rIdSheet', type: `${R}/worksheet`, target: 'worksheets/sheet1.xml' },
    ]),
    'xl/worksheets/sheet1.xml': sheet,
  });
}

const ODF_NS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2"`;

const linkedFrame = (href: string) =>
  `<draw:frame draw:name="L" svg:x="2cm" svg:y="4cm" svg:width="8cm" svg:height="8cm"><draw:image xlink:href="${esc(href)}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`;

/** ODT body: the marker, an image frame linked to `href`, and a section linked to `sectionHref`. */
function odtBody(href: string, sectionHref?: string): string {
  const section = sectionHref
    ? `<text:section text:name="S"><text:section-source xlink:href="${esc(sectionHref)}" xlink:type="simple"/><text:p>placeholder</text:p></text:section>`
    : '';
  return `<office:body><office:text><text:p>${VISIBLE}</text:p><text:p>${linkedFrame(href)}</text:p>${section}</office:text></office:body>`;
}

/** .odt (zipped) with an image linked by xlink:href. */
export function odtLinkedImage(href: string, sectionHref?: string): Promise<Buffer> {
  const mime = 'application/vnd.oasis.opendocument.text';
  return zipOf({
    mimetype: mime,
    'META-INF/manifest.xml': `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
<manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    'content.xml': `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS}>${odtBody(href, sectionHref)}</office:document-content>`,
  });
}

/** Flat ODT (.fodt): the same, as one XML file. */
export const fodtLinked = (href: string, sectionHref?: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><office:document ${ODF_NS} office:mimetype="application/vnd.oasis.opendocument.text">${odtBody(href, sectionHref)}</office:document>`;

/** Flat ODP (.fodp): one slide with the marker and a linked picture. */
export const fodpLinkedImage = (href: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><office:document ${ODF_NS} office:mimetype="application/vnd.oasis.opendocument.presentation">
<office:body><office:presentation><draw:page draw:name="One">
<draw:frame svg:x="2cm" svg:y="1cm" svg:width="20cm" svg:height="2cm"><draw:text-box><text:p>${VISIBLE}</text:p></draw:text-box></draw:frame>
${linkedFrame(href)}</draw:page></office:presentation></office:body></office:document>`;

/** Flat ODS (.fods) whose second sheet is linked to an outside file (table:table-source). */
export const fodsLinkedSheet = (href: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><office:document ${ODF_NS} office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet>
<table:table table:name="A"><table:table-row><table:table-cell office:value-type="string"><text:p>${VISIBLE}</text:p></table:table-cell></table:table-row></table:table>
<table:table table:name="B"><table:table-source xlink:type="simple" xlink:href="${esc(href)}" table:filter-name="Text - txt - csv (StarCalc)" table:filter-options="58,34,76,1" table:mode="copy-all"/>
<table:table-row><table:table-cell office:value-type="string"><text:p>placeholder</text:p></table:table-cell></table:table-row></table:table>
</office:spreadsheet></office:body></office:document>`;

/** RTF with a field (INCLUDETEXT / INCLUDEPICTURE) pulling in a file. */
export const rtfField = (instruction: string) =>
  `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Helvetica;}}\\f0\\fs24 ${VISIBLE}\\par
{\\field{\\*\\fldinst { ${instruction.replaceAll('\\', '\\\\')} }}{\\fldrslt {placeholder}}}\\par}`;

/** Writes `data` as `name` under `dir` and returns its path. */
export function save(dir: string, name: string, data: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, data);
  return file;
}
