// Upload sniffing of PDFs without their `%PDF-` header (issue 14, attack 12): the structure that
// follows (objects, xref, trailer) still makes them PDFs, and nothing else is taken for one.
import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES, sniffContentType } from '../../src/sniff/sniff.js';
import { healthy, hostileVariants } from '../support/hostile-pdf.js';

const head = (bytes: Buffer) => sniffContentType(bytes.subarray(0, SNIFF_BYTES));

describe('PDF sniffing beyond the header', () => {
  it('recognises a PDF whose header line is missing by its first object', () => {
    expect(head(hostileVariants['missing-header']!())).toBe('application/pdf');
  });

  it('recognises one that starts directly with its first object', () => {
    const bytes = hostileVariants['missing-header']!();
    expect(head(bytes.subarray(bytes.indexOf('1 0 obj')))).toBe('application/pdf');
  });

  it('still recognises a PDF with its header', () => {
    expect(head(healthy())).toBe('application/pdf');
  });

  it.each([
    ['prose mentioning an object', 'The answer is 1 0 obj, said nobody.\n'],
    ['an object line with no object after it', '1 0 obj\nnothing closes here\n'],
    ['an object past the header window', `${' '.repeat(1100)}1 0 obj\n<< >>\nendobj\n`],
  ])('does not take %s for a PDF', (_name, text) => {
    expect(head(Buffer.from(text, 'latin1'))).not.toBe('application/pdf');
  });
});
