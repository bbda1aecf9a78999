// Office, text and site uploads are recognised by their bytes, including files LibreOffice wrote.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES, sniffContentType } from '../../src/sniff/sniff.js';
import { officeDocuments } from '../support/heavy-fixtures.js';

const head = (bytes: Buffer | string) => sniffContentType(Buffer.from(bytes).subarray(0, SNIFF_BYTES));

describe('office and text sniffing', () => {
  it('tells docx, xlsx and pptx apart by their first ZIP entries', () => {
    const docs = officeDocuments('Sniff');
    expect(head(readFileSync(docs.docx))).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(head(readFileSync(docs.xlsx))).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(head(readFileSync(docs.pptx))).toBe(
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    );
  }, 120_000);

  it.each([
    ['{\\rtf1\\ansi hello}', 'application/rtf'],
    ['<!doctype html><html><body>x</body></html>', 'text/html'],
    ['<!-- c -->\n<html lang="en">', 'text/html'],
    ['a,b,c\n1,2,3\n4,5,6\n', 'text/csv'],
    ['a;b\n1;2\n', 'text/csv'],
    ['Dear reader,\nthis is prose.\nNo table here\n', 'text/plain'],
    ['Grüße aus Köln\n', 'text/plain'],
  ])('recognises %j as %s', (bytes, type) => {
    expect(head(bytes)).toBe(type);
  });

  it('recognises OLE2 compound files and ODF by their signatures', () => {
    const cfb = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(504),
      Buffer.from('WordDocument', 'utf16le'),
    ]);
    expect(head(cfb)).toBe('application/msword');
    expect(head(cfb.subarray(0, 512))).toBe('application/x-ole-storage');
  });

  it('does not take binary bytes for text', () => {
    expect(head(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]))).toBeUndefined();
    expect(head(Buffer.from([0xc3, 0x28, 0x41, 0x42, 0x43, 0x44, 0x45]))).toBeUndefined();
  });
});
