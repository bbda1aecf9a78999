// veraPDF's report shapes and the PDF/UA identification packet: pure functions, table-driven.
import { describe, expect, it } from 'vitest';
import { jvmArgs } from '../../../src/engines/verapdf/java.js';
import { PROFILES, profileName, toProfileReport } from '../../../src/engines/verapdf/report.js';
import { pdfuaXmp } from '../../../src/tools/html-to-pdf/pdfua-identification.js';

describe('profile names', () => {
  it.each([
    ['ua1', 'pdfua-1'],
    ['2b', 'pdfa-2b'],
    ['4f', 'pdfa-4f'],
    ['wcag2', 'wcag2'],
  ])('veraPDF flavour %s is %s', (flavour, name) => {
    expect(profileName(flavour)).toBe(name);
  });

  it('maps every public name back to its flavour', () => {
    for (const [name, flavour] of Object.entries(PROFILES)) expect(profileName(flavour)).toBe(name);
  });
});

describe('profile report', () => {
  it('counts failed rules and sums their checks', () => {
    const rule = (clause: string, count: number) => ({
      specification: 'ISO 14289-1:2014',
      clause,
      test: 1,
      description: 'd',
      count,
      pages: [],
    });
    const report = toProfileReport({
      flavour: 'ua1',
      profile: 'PDF/UA-1 validation profile',
      specification: 'ISO 14289-1:2014',
      compliant: false,
      end: 'normal',
      rules: [rule('6.2', 1), rule('7.1', 41)],
    });
    expect(report).toMatchObject({
      profile: 'pdfua-1',
      failed_rules: 2,
      failed_checks: 42,
      compliant: false,
    });
  });
});

describe('PDF/UA identification', () => {
  it('declares part 1 and carries the title, escaped', () => {
    const xmp = pdfuaXmp('Q1 <draft> & "notes"');
    expect(xmp).toContain('<pdfuaid:part>1</pdfuaid:part>');
    expect(xmp).toContain('Q1 &#60;draft&#62; &#38; &#34;notes&#34;');
    expect(xmp).not.toContain('<draft>');
  });

  it('writes no dc:title for a document without one', () => {
    expect(pdfuaXmp(undefined)).not.toContain('dc:title');
  });
});

describe('JVM flags', () => {
  it.each([
    [2 * 1024 ** 3, '-Xmx1024m'],
    [256 * 1024 ** 2, '-Xmx128m'],
  ])('under an address-space cap of %d bytes the heap is %s', (bytes, heap) => {
    const args = jvmArgs(bytes);
    expect(args).toContain(heap);
    expect(args).toContain('-XX:CompressedClassSpaceSize=64m');
  });
});
