// scanProtection (tools/framework/encryption-rule.ts): one read of the bytes finds the trailer's /Encrypt and
// a signature's /ByteRange wherever they lie, across the 1 MiB reads too.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanProtection } from '../../src/tools/framework/encryption-rule.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-scan-'));
const MIB = 1024 * 1024;

/** A file of `size` filler bytes with `key` written at `at`. */
function fileWith(key: string, at: number, size = 3 * MIB): string {
  const bytes = Buffer.alloc(size, 0x20);
  if (key) bytes.write(key, at, 'latin1');
  const file = path.join(dir, `f-${key.replace('/', '')}-${at}.pdf`);
  writeFileSync(file, bytes);
  return file;
}

describe('scanProtection', () => {
  it.each([
    ['/Encrypt', 10, { encrypted: true, signed: false }],
    ['/Encrypt', MIB - 3, { encrypted: true, signed: false }],
    ['/Encrypt', 3 * MIB - 8, { encrypted: true, signed: false }],
    ['/ByteRange', MIB - 5, { encrypted: false, signed: true }],
    ['/ByteRange', 2 * MIB - 1, { encrypted: false, signed: true }],
    ['', 0, { encrypted: false, signed: false }],
  ])('finds %s written at byte %i', async (key, at, expected) => {
    expect(await scanProtection(fileWith(key, at))).toEqual(expected);
  });

  it.each([
    ['/Encrypt', 0],
    ['/Encrypt', 200_000 - 8],
    ['/ByteRange', 200_000 - 10],
  ])('finds %s at byte %i of a small file, read whole in one read', async (key, at) => {
    const expected = { encrypted: key === '/Encrypt', signed: key === '/ByteRange' };
    expect(await scanProtection(fileWith(key, at, 200_000))).toEqual(expected);
  });

  it('finds both in one file, and nothing in an empty one', async () => {
    const file = path.join(dir, 'both.pdf');
    writeFileSync(file, '%PDF-1.7\n1 0 obj <</ByteRange [0 1 2 3]>> endobj trailer <</Encrypt 5 0 R>>');
    expect(await scanProtection(file)).toEqual({ encrypted: true, signed: true });
    writeFileSync(path.join(dir, 'empty.pdf'), '');
    expect(await scanProtection(path.join(dir, 'empty.pdf'))).toEqual({ encrypted: false, signed: false });
  });
});
