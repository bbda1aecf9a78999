// The validation report: what the worker (VeraWorker.java) answers, and the public profile names and
// the flavour ids veraPDF knows them by.

/** The profiles a caller may ask for, under their public names, with veraPDF's flavour id of each. */
export const PROFILES = {
  'pdfua-1': 'ua1',
  'pdfua-2': 'ua2',
  'pdfa-1a': '1a',
  'pdfa-1b': '1b',
  'pdfa-2a': '2a',
  'pdfa-2b': '2b',
  'pdfa-2u': '2u',
  'pdfa-3a': '3a',
  'pdfa-3b': '3b',
  'pdfa-3u': '3u',
  'pdfa-4': '4',
  'pdfa-4e': '4e',
  'pdfa-4f': '4f',
} as const;

export type ProfileName = keyof typeof PROFILES;

/** The public name of a veraPDF flavour id (`ua1` → `pdfua-1`); an unknown id is kept as it is. */
export function profileName(flavour: string): string {
  const found = Object.entries(PROFILES).find(([, id]) => id === flavour);
  return found ? found[0] : flavour;
}

/** One rule of the profile that the file breaks. */
export interface FailedRule {
  /** The standard the rule is from (`ISO 14289-1:2014`). */
  specification: string;
  /** Its clause in that standard (`7.1`). */
  clause: string;
  /** veraPDF's number of the test within the clause. */
  test: number;
  description: string;
  /** How many objects fail it. */
  count: number;
  /** Pages (from 1) of the failing objects that sit on a page, of the first 10 000 per rule. */
  pages: number[];
}

/** The verdict against one profile. */
export interface ProfileReport {
  /** The public profile name (`pdfua-1`, `pdfa-2b`). */
  profile: string;
  /** veraPDF's name of the profile it applied (`PDF/UA-1 validation profile`). */
  title: string;
  specification: string;
  compliant: boolean;
  failed_rules: number;
  failed_checks: number;
  rules: FailedRule[];
}

/** What VeraWorker.java sends for one report. */
export interface WorkerReport {
  flavour: string;
  profile: string;
  specification: string;
  compliant: boolean;
  end: string;
  rules: FailedRule[];
}

export type WorkerReply =
  | { ok: true; reports: WorkerReport[] }
  | { ok: false; error: 'encrypted' | 'unreadable' | 'memory' | 'failed'; detail?: string };

export function toProfileReport(r: WorkerReport): ProfileReport {
  return {
    profile: profileName(r.flavour),
    title: r.profile,
    specification: r.specification,
    compliant: r.compliant,
    failed_rules: r.rules.length,
    failed_checks: r.rules.reduce((n, rule) => n + rule.count, 0),
    rules: r.rules,
  };
}
