import { describe, expect, it } from 'vitest';
import { sniffContentType } from '../../src/sniff/sniff.js';

describe('content sniffing', () => {
  it.each([
    [Buffer.from('%PDF-1.7\n%âãÏÓ\n'), 'application/pdf'],
    [
      Buffer.concat([Buffer.from('garbage before the header\n'), Buffer.from('%PDF-2.0\n')]),
      'application/pdf',
    ],
    [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpeg'],
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'image/png'],
    [Buffer.from('II*\u0000rest', 'latin1'), 'image/tiff'],
    [Buffer.from('MM\u0000*rest', 'latin1'), 'image/tiff'],
    [Buffer.from('GIF89a....'), 'image/gif'],
    [Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ', 'latin1'), 'image/webp'],
  ])('recognises %s', (head, type) => {
    expect(sniffContentType(head)).toBe(type);
  });

  it('does not look for the PDF header past the first 1024 bytes', () => {
    // Such bytes are plain text now (office-to-pdf accepts text); PDF tools still refuse them.
    expect(sniffContentType(Buffer.concat([Buffer.alloc(1024, 0x20), Buffer.from('%PDF-1.4')]))).not.toBe(
      'application/pdf',
    );
  });

  it.each([
    [Buffer.alloc(0)],
    [Buffer.from([0x00, 0x01, 0x02, 0xfe, 0xff])],
    [Buffer.from('PK\u0003\u0004')],
  ])('refuses content of no accepted type', (head) => {
    expect(sniffContentType(head)).toBeUndefined();
  });
});
