// veraPDF, the PDF Association's reference PDF/A and PDF/UA validator, run directly as its own
// command line (GreenfieldCliWrapper) from the pinned release scripts/setup.sh installs: the
// yardstick that the `validate` tool's warm JVM worker and pdfa's verdict are held to.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const VERSION = '1.28.2';
const lib = `/opt/quire-verapdf/${VERSION}`;

/** Fails with what to run when the release is not installed. */
export function ensureVerapdf(): void {
  if (!existsSync(`${lib}/greenfield-apps-${VERSION}.jar`))
    throw new Error(`veraPDF is not installed in ${lib}: run scripts/setup.sh as root`);
}

export interface VerapdfVerdict {
  compliant: boolean;
  /** `clause-test` of each failed rule, as the CLI prints them (`6.1.3-1`). */
  failedRules: string[];
}

/** Validates `file` against flavour `flavour` (`1b`, `2b`, `ua1`, …; `0` lets veraPDF pick by the file's claim). */
export async function verapdf(file: string, flavour: string): Promise<VerapdfVerdict> {
  return (await verapdfReports(file, flavour))[0] ?? { compliant: false, failedRules: [] };
}

/** Every report the CLI prints for `file` (one per profile when the file claims several). */
export async function verapdfReports(file: string, flavour: string): Promise<VerapdfVerdict[]> {
  return (await verapdfFiles([file], flavour)).get(file) ?? [];
}

/** One CLI run over several files: each file's reports, by the path given. */
export async function verapdfFiles(files: string[], flavour: string): Promise<Map<string, VerapdfVerdict[]>> {
  ensureVerapdf();
  const { stdout } = await promisify(execFile)(
    'java',
    [
      '-cp',
      `${lib}/*`,
      'org.verapdf.apps.GreenfieldCliWrapper',
      '--flavour',
      flavour,
      '--format',
      'text',
      '-v',
      ...files,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const byFile = new Map<string, VerapdfVerdict[]>();
  let current: VerapdfVerdict | undefined;
  for (const line of stdout.split('\n')) {
    const head = /^(PASS|FAIL) (.+) (\S+)$/.exec(line);
    if (head) {
      current = { compliant: head[1] === 'PASS', failedRules: [] };
      byFile.set(head[2]!, [...(byFile.get(head[2]!) ?? []), current]);
    }
    const rule = /^\s+FAIL (\S+)/.exec(line);
    if (rule && current) current.failedRules.push(rule[1]!);
  }
  return byFile;
}
