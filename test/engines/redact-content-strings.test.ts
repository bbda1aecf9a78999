// Engine tier (the pymupdf venv's Python): the redact driver's content-stream lexer
// (src/engines/pymupdf/redact/content_strings.py), table driven: strings inside marked-content
// dictionaries are cleaned, whatever their form; text shown on the page (MuPDF's redaction handles
// it), comments and inline image data are left alone.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PYMUPDF_PYTHON } from '../../src/engines/pymupdf/pymupdf.js';
import { repoRoot } from '../support/corpus.js';

const DRIVER = path.join(repoRoot, 'src/engines/pymupdf/redact');

const SCRIPT = `
import json, sys
sys.path.insert(0, sys.argv[1])
from content_strings import scrub_content
from terms import Terms
terms = Terms(["SECRET"], [], False)
out = []
for case in json.load(sys.stdin):
    clean, changed = scrub_content(case.encode("latin-1"), terms)
    out.append([clean.decode("latin-1"), changed])
json.dump(out, sys.stdout)
`;

function scrub(cases: string[]): Array<[string, number]> {
  const out = execFileSync(PYMUPDF_PYTHON, ['-I', '-c', SCRIPT, DRIVER], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
  });
  return JSON.parse(out) as Array<[string, number]>;
}

const utf16 = (text: string) =>
  `<FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}>`;

describe('redact content-stream lexer', () => {
  const cases: Array<[string, string, string, number]> = [
    ['a literal /Alt', '/Span <</Alt (alt SECRET)>> BDC EMC', '/Span <</Alt <616C7420>>> BDC EMC', 1],
    [
      'a UTF-16 hex /ActualText',
      `/Span <</ActualText ${utf16('x SECRET')}>> BDC`,
      '/Span <</ActualText <7820>>> BDC',
      1,
    ],
    [
      'escapes and balanced parentheses',
      '/P <</Alt (a \\(b\\) (c) SE\\103RET)>> BDC',
      '/P <</Alt <61202862292028632920>>> BDC',
      1,
    ],
    ['a nested dictionary', '/P <</X <</Y (SECRET)>> /Z (keep)>> DP', '/P <</X <</Y <>>> /Z (keep)>> DP', 1],
    [
      'text shown on the page',
      'BT (SECRET) Tj ET /P <</MCID 0>> BDC EMC',
      'BT (SECRET) Tj ET /P <</MCID 0>> BDC EMC',
      0,
    ],
    ['a comment', '% <</Alt (SECRET)>>\n/P <</MCID 1>> BDC', '% <</Alt (SECRET)>>\n/P <</MCID 1>> BDC', 0],
    [
      'inline image data',
      'BI /W 1 /H 1 /BPC 8 /CS /G ID <<(SECRET)>> EI /P <</Alt (SECRET)>> BDC',
      'BI /W 1 /H 1 /BPC 8 /CS /G ID <<(SECRET)>> EI /P <</Alt <>>> BDC',
      1,
    ],
    ['no dictionary at all', 'BT (SECRET) Tj ET', 'BT (SECRET) Tj ET', 0],
  ];

  it('cleans the strings of marked-content dictionaries and nothing else', () => {
    const results = scrub(cases.map((c) => c[1]));
    for (const [i, [name, , expected, changed]] of cases.entries()) {
      expect(results[i], name).toEqual([expected, changed]);
    }
  });
});
