// The result ZIP (yazl, stored entries): what `unzip -t` and yauzl read back (names, bytes, CRCs).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeZip } from '../../src/tools/framework/zip.js';
import { unzip } from '../support/pdf.js';

describe('writeZip', () => {
  it('writes every file byte for byte under its name, with CRCs unzip verifies', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'quire-zip-'));
    const files = {
      'a.bin': Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 7 }, (_, i) => (i * 31) & 0xff)),
      'empty.txt': Buffer.alloc(0),
      'späte Seite.txt': Buffer.from('UTF-8 name\n'),
    };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(dir, name), bytes);
    const output = path.join(dir, 'out.zip');
    const entries = Object.keys(files).map((name) => ({ path: path.join(dir, name), name }));
    await writeZip([...entries, { path: path.join(dir, 'empty.txt'), name: 'a.bin' }], output);

    expect(execFileSync('unzip', ['-t', output], { encoding: 'utf8' })).toContain('No errors detected');
    const read = await unzip(readFileSync(output));
    expect([...read.keys()]).toEqual(['a.bin', 'empty.txt', 'späte Seite.txt', 'a-2.bin']);
    for (const [name, bytes] of Object.entries(files)) expect(read.get(name)!.equals(bytes), name).toBe(true);
    expect(read.get('a-2.bin')!.length).toBe(0);
  });

  it('names entries without bidi controls, zero-width or C1 characters', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'quire-zip-'));
    writeFileSync(path.join(dir, 'x'), 'x');
    const output = path.join(dir, 'out.zip');
    const names = ['invoice\u202Efdp.exe', 'a\u200Bb\u2066c\u2069.pdf', 'c1\u0085\u009Bx.pdf', '\u200F'];
    await writeZip(
      names.map((name) => ({ path: path.join(dir, 'x'), name })),
      output,
    );
    expect([...(await unzip(readFileSync(output))).keys()]).toEqual([
      'invoicefdp.exe',
      'abc.pdf',
      'c1x.pdf',
      'file',
    ]);
  });

  it('stops when the signal aborts', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'quire-zip-'));
    writeFileSync(path.join(dir, 'a'), 'a');
    const abort = new AbortController();
    abort.abort(new Error('canceled'));
    await expect(
      writeZip([{ path: path.join(dir, 'a'), name: 'a' }], path.join(dir, 'z'), abort.signal),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});
