// The detection module detect-pii and redact's `detect` share (src/engines/pymupdf/redact/pii.py),
// run by the PyMuPDF venv's Python on texts: each kind and each national identifier scheme of
// docs/tools.md is found when valid and not when its check fails; overlapping kinds take the
// documented precedence; masks keep what docs/tools.md says they keep.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NATIONAL_ID_SCHEMES, PII_KINDS } from '../../src/engines/pymupdf/detect.js';
import { PYMUPDF_PYTHON } from '../../src/engines/pymupdf/pymupdf.js';

const DRIVER = fileURLToPath(new URL('../../src/engines/pymupdf/redact/', import.meta.url));

interface Found {
  kind: string;
  scheme: string | null;
  value: string;
  masked: string;
}

/** What the Detector finds in each text (all kinds, region US unless given). */
function detect(texts: string[], region = 'US'): Found[][] {
  const script = [
    'import json, sys',
    'sys.path.insert(0, sys.argv[1])',
    'from pii import KINDS, Detector, mask',
    'job = json.load(sys.stdin)',
    'd = Detector(KINDS, job["region"])',
    'print(json.dumps([[{"kind": f.kind, "scheme": f.scheme, "value": f.value, "masked": mask(f.kind, f.value)}',
    '  for f in d.found(t)] for t in job["texts"]]))',
  ].join('\n');
  const out = execFileSync(PYMUPDF_PYTHON, ['-I', '-c', script, DRIVER], {
    input: JSON.stringify({ texts, region }),
    encoding: 'utf8',
  });
  return JSON.parse(out) as Found[][];
}

// [kind or scheme, valid, the same with its check failing]
const CASES: Array<[string, string, string]> = [
  ['email', 'jane.doe@example.com', 'jane.doe@localhost'],
  ['phone', '(202) 555-0143', '(202) 555-014'],
  ['iban', 'DE89 3704 0044 0532 0130 00', 'DE88 3704 0044 0532 0130 00'],
  ['card', '4111 1111 1111 1111', '4111 1111 1111 1112'],
  ['ip', '192.168.10.42', '192.168.10.420'],
  ['us.ssn', '536-22-8726', '000-22-8726'],
  ['de.idnr', '36574261809', '36574261808'],
  ['pl.pesel', '44051401359', '44051401358'],
  ['fr.nir', '2 95 10 99 126 111 93', '2 95 10 99 126 111 94'],
  ['nl.bsn', '111222333', '111222334'],
  ['es.dni', '54362315K', '54362315A'],
  ['es.nie', 'X2482300W', 'X2482300A'],
  ['it.codicefiscale', 'RCCMNL83S18D969H', 'RCCMNL83S18D969A'],
  ['se.personnummer', '880320-0016', '880320-0017'],
  ['fi.hetu', '131052-308T', '131052-308U'],
];

describe('the personal data detector', () => {
  it('finds each kind and scheme when valid, and nothing when its check fails', () => {
    const texts = CASES.flatMap(([, valid, invalid]) => [`Value ${valid} here.`, `Value ${invalid} here.`]);
    const found = detect(texts);
    CASES.forEach(([name, valid], i) => {
      const hit = found[2 * i]!;
      expect(
        hit.map((f) => f.value),
        name,
      ).toEqual([valid]);
      expect(hit[0]!.scheme ?? hit[0]!.kind, name).toBe(name);
      expect(found[2 * i + 1], `${name} failing its check`).toEqual([]);
    });
    const covered = new Set(CASES.map(([name]) => name));
    for (const each of [...PII_KINDS.filter((k) => k !== 'national_id'), ...NATIONAL_ID_SCHEMES])
      expect(covered.has(each), each).toBe(true);
  });

  it('takes an overlap by the first kind of email, iban, card, national_id, ip, phone, and a wrapped value', () => {
    const [card, wrapped, ipv6, dates] = detect([
      'Card 4111111111111111 paid.',
      'IBAN DE89 3704 0044\n0532 0130 00 due.',
      'Hosts 2001:db8::8a2e:370:7334 and ::1, not 12:30:45, e:: or std::map.',
      'On 2024-03-15, 15.03.2024, 2023/11/04 and invoice 2023-000123, build 1.2.3.4.5.',
    ]);
    expect(card!.map((f) => f.kind)).toEqual(['card']);
    expect(wrapped!.map((f) => [f.kind, f.value])).toEqual([['iban', 'DE89 3704 0044 0532 0130 00']]);
    expect(ipv6!.map((f) => f.value)).toEqual(['2001:db8::8a2e:370:7334', '::1']);
    expect(dates).toEqual([]);
  });

  it('reads national-format phone numbers for the region given; + numbers in any', () => {
    const [us, de] = [
      detect(['Call 030 901820 or +44 20 7946 0958.'])[0]!,
      detect(['Call 030 901820.'], 'DE')[0]!,
    ];
    expect(us.map((f) => f.value)).toEqual(['+44 20 7946 0958']);
    expect(de.map((f) => f.value)).toEqual(['030 901820']);
  });

  it('finds nothing in the numbers of ordinary business documents', () => {
    const [found] = detect([
      [
        'Total 1,234,567.89 EUR on 2024-03-15T12:30:45Z, id 550e8400-e29b-41d4-a716-446655440000,',
        'zip 10115 Berlin, 90210, ext 4021, room 3.14, page 12 of 300, ratio 16:9, build 2024.03.15.1,',
        'PO 4500012345, customer 100200300, invoice no. 2023-000123, tracking 1Z999AA10123456784,',
        'ISBN 978-0-306-40615-7, ISSN 0378-5955, EAN 4006381333931, coordinates 52.5200, 13.4050,',
        'timestamp 1700000000, 23:59:59, version 10.0.19045.3803, MAC 00:1A:2B:3C:4D:5E,',
        'account 1234 5678 9012 3456, serial 0000 0000 0000 0000, GTIN 00012345600012.',
      ].join('\n'),
    ]);
    expect(found).toEqual([]);
  });

  it('masks as docs/tools.md says', () => {
    const [found] = detect([
      'jane.doe@example.com 4111 1111 1111 1111 DE89 3704 0044 0532 0130 00 +44 20 7946 0958 192.168.10.42 536-22-8726',
    ]);
    expect(found!.map((f) => f.masked)).toEqual([
      'j***@example.com',
      '**** **** **** 1111',
      'DE** **** **** **** **30 00',
      '+** ** **** **58',
      '***.***.**.**',
      '***-**-**26',
    ]);
  });
});
