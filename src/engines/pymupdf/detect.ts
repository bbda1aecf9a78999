// What the pymupdf engine's personal-data detection (redact/pii.py, redact/detect.py) takes and
// gives: the kinds it finds, the job, the counts it reports and the matches of its result file.

/** The kinds of personal data the driver finds (pii.py KINDS), in its order of precedence. */
export const PII_KINDS = ['email', 'phone', 'iban', 'card', 'ip', 'national_id'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

/** The national identifier schemes (python-stdnum module names, pii.py NATIONAL_IDS). */
export const NATIONAL_ID_SCHEMES = [
  'us.ssn',
  'de.idnr',
  'pl.pesel',
  'fr.nir',
  'nl.bsn',
  'es.dni',
  'es.nie',
  'it.codicefiscale',
  'se.personnummer',
  'fi.hetu',
] as const;

export interface DetectJob {
  kinds: readonly PiiKind[];
  /** ISO 3166 region phone numbers without a country code are read for; null: only `+` numbers. */
  region: string | null;
  /** Only these pages (from 1); all when absent. */
  pages?: readonly number[];
}

/** One match of the result file. `value` is the full value: it is never logged or stored. */
export interface PiiMatch {
  kind: PiiKind;
  scheme?: string;
  page: number;
  /** [x1, y1, x2, y2] in PDF points from the bottom left of the unrotated page, one per line piece. */
  rects: Array<[number, number, number, number]>;
  value: string;
  masked: string;
}

/** The driver's stdout: counts only. */
export interface DetectSummary {
  pages: number;
  counts: Partial<Record<PiiKind, number>>;
  /** Pages whose text layer holds no text (scanned): what `ocr: auto` recognises. */
  textless_pages: number[];
  /** Matches outside the page text, by place (redact's `removed` keys). */
  elsewhere: Record<string, number>;
}

/** The result file (detect.py). */
export interface DetectReport {
  pages: number;
  counts: Partial<Record<PiiKind, number>>;
  matches: PiiMatch[];
  elsewhere: Record<string, number>;
}
