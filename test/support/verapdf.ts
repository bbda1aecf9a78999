// veraPDF, the PDF Association's reference PDF/A validator, fetched from Maven Central once into
// .tmp/verapdf (reused by later runs) and run as a Java program on result files.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './corpus.js';

const VERSION = '1.28.2';
const dir = path.join(repoRoot, '.tmp', 'verapdf');
const lib = path.join(dir, `lib-${VERSION}`);

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.quire.test</groupId><artifactId>verapdf-fetch</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.verapdf.apps</groupId><artifactId>greenfield-apps</artifactId><version>${VERSION}</version></dependency>
  </dependencies>
</project>`;

/** Downloads veraPDF's jars with Maven when they are not there yet; idempotent. */
export function ensureVerapdf(): void {
  if (existsSync(lib) && readdirSync(lib).some((f) => f.startsWith('greenfield-apps'))) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'pom.xml'), POM);
  execFileSync('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`], {
    cwd: dir,
    stdio: 'ignore',
    timeout: 300_000,
  });
}

export interface VerapdfVerdict {
  compliant: boolean;
  failedRules: string[];
}

/** Validates `file` against PDF/A flavour `flavour` (`1b`, `2b`, `3b`). */
export async function verapdf(file: string, flavour: string): Promise<VerapdfVerdict> {
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
      file,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return {
    compliant: /^PASS /m.test(stdout),
    failedRules: [...stdout.matchAll(/^\s+FAIL (\S+)/gm)].map((m) => m[1]!),
  };
}
